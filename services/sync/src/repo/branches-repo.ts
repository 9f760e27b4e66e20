import type { Queryable } from '@lode/db';
import { MAIN_BRANCH } from '@lode/contracts/commit';

/** The branch a sync reads and the main commits its history includes (null: main's own). */
export interface Lineage {
  branch: string;
  baseSeq: number | null;
}

/** Branches other than main and where they started (table `branches`). */
export class BranchesRepository {
  /** Records a branch on its first commit; true when it is new, so the caller copies main's tree. */
  async create(tx: Queryable, projectId: string, name: string, baseSeq: number): Promise<boolean> {
    const { rowCount } = await tx.query('INSERT INTO branches (project_id, name, base_seq) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
      projectId,
      name,
      baseSeq,
    ]);
    return rowCount === 1;
  }

  /**
   * A branch without a commit yet reads as main: its first commit will start it from main's state
   * (docs/api.md, Commits), so that is what the client would get.
   */
  async lineage(q: Queryable, projectId: string, name: string): Promise<Lineage> {
    if (name === MAIN_BRANCH) return { branch: MAIN_BRANCH, baseSeq: null };
    const { rows } = await q.query<{ base_seq: number }>('SELECT base_seq FROM branches WHERE project_id = $1 AND name = $2', [projectId, name]);
    return rows[0] ? { branch: name, baseSeq: rows[0].base_seq } : { branch: MAIN_BRANCH, baseSeq: null };
  }
}
