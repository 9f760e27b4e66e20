import type { Queryable } from '@lode/db';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import { MAIN_GENERATION } from '@lode/contracts/sync';
import type { Incarnation, Lineage, Segment } from './sync-rows.ts';

const MAIN: Lineage = { branch: MAIN_BRANCH, segments: [{ branch: MAIN_BRANCH, after: 0, through: null }] };

/** Branches other than main and their lineages (table `branches`). */
export class BranchesRepository {
  /**
   * Records a branch on its first commit (`baseSeq` = the commit before it), forked from main then;
   * true when it is new, so the caller copies main's tree. The commit service does the same.
   */
  async create(tx: Queryable, projectId: string, name: string, baseSeq: number): Promise<boolean> {
    const lineage = [
      { branch: name, after: baseSeq, through: null },
      { branch: MAIN_BRANCH, after: 0, through: baseSeq },
    ];
    return this.createForked(tx, projectId, name, baseSeq, lineage);
  }

  /** Records a branch created by POST /branches (branch.changed) with the lineage it came with. */
  async createForked(tx: Queryable, projectId: string, name: string, baseSeq: number, lineage: readonly Segment[]): Promise<boolean> {
    const { rowCount } = await tx.query('INSERT INTO branches (project_id, name, base_seq, lineage) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
      projectId,
      name,
      baseSeq,
      JSON.stringify(lineage),
    ]);
    return rowCount === 1;
  }

  async delete(tx: Queryable, projectId: string, name: string): Promise<void> {
    await tx.query('DELETE FROM branches WHERE project_id = $1 AND name = $2', [projectId, name]);
  }

  /**
   * A branch the read model does not hold (never created, or deleted) reads as main: a commit to it
   * would create it from main's state (docs/api.md, Commits), so that is what the client would get.
   */
  async lineage(q: Queryable, projectId: string, name: string): Promise<Lineage> {
    if (name === MAIN_BRANCH) return MAIN;
    const { rows } = await q.query<{ lineage: Segment[] }>('SELECT lineage FROM branches WHERE project_id = $1 AND name = $2', [projectId, name]);
    return rows[0] ? { branch: name, segments: rows[0].lineage } : MAIN;
  }

  /** The tree a branch name reads and its generation: main's for main and for a branch the read model does not hold (as lineage). */
  async incarnation(q: Queryable, projectId: string, name: string): Promise<Incarnation> {
    if (name === MAIN_BRANCH) return { branch: MAIN_BRANCH, generation: MAIN_GENERATION };
    const { rows } = await q.query<{ generation: string }>('SELECT generation FROM branches WHERE project_id = $1 AND name = $2', [projectId, name]);
    return rows[0] ? { branch: name, generation: rows[0].generation } : { branch: MAIN_BRANCH, generation: MAIN_GENERATION };
  }
}
