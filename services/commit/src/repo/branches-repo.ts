import { BEFORE_FIRST_ID, inKeySlices, ROWS_PER_SLICE, type NamedStatement, type Queryable, type Slice } from '@lode/db';
import type { Lineage } from '../domain/lineage.ts';

/** A branch's row, with the id of its head commit. */
export interface BranchRow {
  name: string;
  headSeq: number | null;
  headCommitId: string | null;
  baseSeq: number | null;
  forkedFrom: string | null;
  createdAfter: number;
  lineage: Lineage;
  createdAt: Date;
  createdBy: { userId: string; userName: string } | null;
}

export interface NewBranch {
  projectId: string;
  name: string;
  /** The lineage's head: the parent's head when forked. */
  headSeq: number | null;
  baseSeq: number | null;
  forkedFrom: string | null;
  createdAfter: number;
  lineage: Lineage;
  createdBy: { userId: string; userName: string } | null;
}

/** Where a change to the project's branches stands among its commits (project_sequences). */
export interface BranchChangeSlot {
  /** The project's last commit number. */
  lastSeq: number;
  /** This change's number among the project's branch changes. */
  change: number;
}

const COLUMNS = `b.name, b.head_seq AS "headSeq", c.id AS "headCommitId", b.base_seq AS "baseSeq", b.forked_from AS "forkedFrom",
  b.created_after AS "createdAfter", b.lineage, b.created_at AS "createdAt",
  CASE WHEN b.created_by_id IS NULL THEN NULL ELSE json_build_object('userId', b.created_by_id, 'userName', b.created_by_name) END AS "createdBy"`;
const HEAD_JOIN = 'LEFT JOIN commits c ON c.project_id = b.project_id AND c.sequence_num = b.head_seq';

// Run by every commit to a branch other than main, so prepared once per connection.
const CREATE_ON_COMMIT: NamedStatement = {
  name: 'commit.create_branch_on_commit',
  text: `INSERT INTO branches (project_id, name, base_seq, forked_from, created_after, lineage, created_by_id, created_by_name)
         VALUES ($1, $2, (SELECT head_seq FROM branches WHERE project_id = $1 AND name = $3), $3, $4, $5, $6, $7)
         ON CONFLICT DO NOTHING`,
};

/** SQL for the branches table: one small row per branch, its lineage kept by value. */
export class BranchesRepository {
  async find(q: Queryable, projectId: string, name: string): Promise<BranchRow | undefined> {
    const { rows } = await q.query<BranchRow>(`SELECT ${COLUMNS} FROM branches b ${HEAD_JOIN} WHERE b.project_id = $1 AND b.name = $2`, [projectId, name]);
    return rows[0];
  }

  /**
   * A page in listing order: main, then the others by name in byte order; `after` is the last row
   * of the previous page as (rank, name), main's rank 0 and the others' 1.
   */
  async page(q: Queryable, projectId: string, main: string, after: readonly [number, string] | undefined, limit: number): Promise<BranchRow[]> {
    const { rows } = await q.query<BranchRow>(
      `SELECT ${COLUMNS} FROM branches b ${HEAD_JOIN}
       WHERE b.project_id = $1 AND ($3::int IS NULL OR (CASE WHEN b.name = $2 THEN 0 ELSE 1 END, b.name COLLATE "C") > ($3, $4::text COLLATE "C"))
       ORDER BY b.name <> $2, b.name COLLATE "C" LIMIT $5`,
      [projectId, main, after?.[0] ?? null, after?.[1] ?? null, limit],
    );
    return rows;
  }

  /**
   * Takes the project's sequence row lock until the transaction ends, as a commit does, and counts
   * one more branch change: creations and deletions are ordered with the project's commits, and
   * what the statements after this one read is as of that order.
   */
  async lockForChange(tx: Queryable, projectId: string): Promise<BranchChangeSlot> {
    const { rows } = await tx.query<BranchChangeSlot>(
      `INSERT INTO project_sequences (project_id, last_seq, branch_changes) VALUES ($1, 0, 1)
       ON CONFLICT (project_id) DO UPDATE SET branch_changes = project_sequences.branch_changes + 1
       RETURNING last_seq AS "lastSeq", branch_changes AS change`,
      [projectId],
    );
    return rows[0];
  }

  /** False when the name is taken. */
  async insert(tx: Queryable, b: NewBranch): Promise<boolean> {
    const { rowCount } = await tx.query(
      `INSERT INTO branches (project_id, name, head_seq, base_seq, forked_from, created_after, lineage, created_by_id, created_by_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      [b.projectId, b.name, b.headSeq, b.baseSeq, ...originParams(b)],
    );
    return rowCount === 1;
  }

  /**
   * A commit to a branch that does not exist creates it (docs/api.md, Commits), with the parent's
   * head then and its tree copied. Run under the project's sequence row lock, in a statement of its
   * own, so it sees every branch created or deleted before the lock was granted. True when created.
   */
  async createOnCommit(
    tx: Queryable,
    b: {
      projectId: string;
      name: string;
      forkedFrom: string | null;
      createdAfter: number;
      lineage: Lineage;
      createdBy: { userId: string; userName: string } | null;
    },
  ): Promise<boolean> {
    const { rowCount } = await tx.query(CREATE_ON_COMMIT, [b.projectId, b.name, ...originParams(b)]);
    if (rowCount === 1 && b.forkedFrom !== null) await this.copyTree(tx, b.projectId, b.forkedFrom, b.name);
    return rowCount === 1;
  }

  /** A new branch's tree is its parent's, as it is now: copied a slice of files per statement, in file id order. */
  async copyTree(tx: Queryable, projectId: string, from: string, to: string, rowsPerSlice = ROWS_PER_SLICE): Promise<void> {
    await inKeySlices<string>(BEFORE_FIRST_ID, rowsPerSlice, async (after, size) => {
      const { rows } = await tx.query<Slice<string>>(
        `WITH slice AS (
           SELECT * FROM tree WHERE project_id = $1 AND branch = $2 AND file_id > $4 ORDER BY file_id LIMIT $5
         ),
         copied AS (
           INSERT INTO tree (project_id, branch, file_id, path, version, sha256, size, commit_seq, deleted)
           SELECT project_id, $3, file_id, path, version, sha256, size, commit_seq, deleted FROM slice
         )
         SELECT count(*)::int AS count, (SELECT file_id FROM slice ORDER BY file_id DESC LIMIT 1) AS last FROM slice`,
        [projectId, from, to, after, size],
      );
      return rows[0];
    });
  }

  /** Removes the branch and its tree; its commits stay. False when there is no such branch. */
  async delete(tx: Queryable, projectId: string, name: string): Promise<boolean> {
    const { rows } = await tx.query<{ deleted: boolean }>(
      `WITH gone AS (DELETE FROM branches WHERE project_id = $1 AND name = $2 RETURNING name),
       tree_gone AS (DELETE FROM tree WHERE project_id = $1 AND branch = $2 AND EXISTS (SELECT FROM gone))
       SELECT EXISTS (SELECT FROM gone) AS deleted`,
      [projectId, name],
    );
    return rows[0].deleted;
  }
}

/** Where a new branch comes from and who made it, in the column order both inserts take them. */
function originParams(b: Pick<NewBranch, 'forkedFrom' | 'createdAfter' | 'lineage' | 'createdBy'>): unknown[] {
  return [b.forkedFrom, b.createdAfter, JSON.stringify(b.lineage), b.createdBy?.userId ?? null, b.createdBy?.userName ?? null];
}
