import type { Queryable } from '@lode/db';
import type { PlannedEntry, TreeState } from '../domain/commit-plan.ts';

export interface NewCommit {
  id: string;
  projectId: string;
  sequenceNum: number;
  branch: string;
  message: string;
  authorId: string;
  authorName: string;
  fileCount: number;
}

/**
 * SQL for commits, their entries, branches and the tree. The writes run inside the commit's
 * transaction: the caller holds the project's sequence row lock, so nothing here races. The reads
 * (latestSequence, treeStates) also answer other services, outside any commit, as of that moment.
 */
export class CommitsRepository {
  /**
   * Takes the project's next sequence number and holds its row lock until the transaction ends, so a
   * project's commits are serialized and a rolled-back commit gives its number back: no gaps.
   */
  async nextSequence(tx: Queryable, projectId: string): Promise<number> {
    const { rows } = await tx.query<{ last_seq: number }>(
      `INSERT INTO project_sequences (project_id, last_seq) VALUES ($1, 1)
       ON CONFLICT (project_id) DO UPDATE SET last_seq = project_sequences.last_seq + 1
       RETURNING last_seq`,
      [projectId],
    );
    return rows[0].last_seq;
  }

  async latestSequence(q: Queryable, projectId: string): Promise<number> {
    const { rows } = await q.query<{ last_seq: number }>('SELECT last_seq FROM project_sequences WHERE project_id = $1', [projectId]);
    return rows[0]?.last_seq ?? 0;
  }

  /** Creates the branch on its first commit; a branch other than main starts as a copy of main's tree. */
  async ensureBranch(tx: Queryable, projectId: string, branch: string, main: string): Promise<void> {
    const { rowCount } = await tx.query(
      `INSERT INTO branches (project_id, name, base_seq)
       VALUES ($1, $2, (SELECT head_seq FROM branches WHERE project_id = $1 AND name = $3))
       ON CONFLICT DO NOTHING`,
      [projectId, branch, main],
    );
    if (rowCount === 1 && branch !== main) {
      await tx.query(
        `INSERT INTO tree (project_id, branch, file_id, path, version, sha256, size, commit_seq, deleted)
         SELECT project_id, $2, file_id, path, version, sha256, size, commit_seq, deleted
         FROM tree WHERE project_id = $1 AND branch = $3`,
        [projectId, branch, main],
      );
    }
  }

  async treeStates(tx: Queryable, projectId: string, branch: string, fileIds: readonly string[]): Promise<Map<string, TreeState>> {
    const { rows } = await tx.query<TreeState>(
      `SELECT file_id AS "fileId", version, sha256, size, deleted FROM tree
       WHERE project_id = $1 AND branch = $2 AND file_id = ANY($3::uuid[])`,
      [projectId, branch, fileIds],
    );
    return new Map(rows.map((row) => [row.fileId, row]));
  }

  /** Inserts the commit and its entries, moves the tree and the branch head: four statements. */
  async record(tx: Queryable, c: NewCommit, entries: readonly PlannedEntry[]): Promise<Date> {
    const { rows } = await tx.query<{ created_at: Date }>(
      `INSERT INTO commits (id, project_id, sequence_num, branch, message, author_id, author_name, file_count)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING created_at`,
      [c.id, c.projectId, c.sequenceNum, c.branch, c.message, c.authorId, c.authorName, c.fileCount],
    );
    const column = <T>(pick: (e: PlannedEntry) => T): T[] => entries.map(pick);
    await tx.query(
      `INSERT INTO commit_entries (commit_id, project_id, branch, file_id, path, action, version, version_id, sha256, size,
                                   storage_key, uploader_id, uploader_name, version_created_at)
       SELECT $1, $2, $3, * FROM unnest($4::uuid[], $5::text[], $6::text[], $7::int[], $8::uuid[], $9::text[], $10::bigint[],
                                       $11::text[], $12::uuid[], $13::text[], $14::timestamptz[])`,
      [
        c.id,
        c.projectId,
        c.branch,
        column((e) => e.fileId),
        column((e) => e.path),
        column((e) => e.action),
        column((e) => e.version),
        column((e) => e.versionId),
        column((e) => e.sha256),
        column((e) => e.size),
        column((e) => e.storageKey),
        column((e) => e.uploaderId),
        column((e) => e.uploaderName),
        column((e) => e.versionCreatedAt),
      ],
    );
    await tx.query(
      `INSERT INTO tree (project_id, branch, file_id, path, version, sha256, size, commit_seq, deleted)
       SELECT $1, $2, file_id, path, version, sha256, size, $3, deleted
       FROM unnest($4::uuid[], $5::text[], $6::int[], $7::text[], $8::bigint[], $9::bool[])
         AS t(file_id, path, version, sha256, size, deleted)
       ON CONFLICT (project_id, branch, file_id) DO UPDATE
         SET path = excluded.path, version = excluded.version, sha256 = excluded.sha256, size = excluded.size,
             commit_seq = excluded.commit_seq, deleted = excluded.deleted`,
      [
        c.projectId,
        c.branch,
        c.sequenceNum,
        column((e) => e.fileId),
        column((e) => e.path),
        column((e) => e.treeVersion),
        column((e) => e.treeSha256),
        column((e) => e.treeSize),
        column((e) => e.action === 'delete'),
      ],
    );
    await tx.query('UPDATE branches SET head_seq = $3 WHERE project_id = $1 AND name = $2', [c.projectId, c.branch, c.sequenceNum]);
    return rows[0].created_at;
  }
}
