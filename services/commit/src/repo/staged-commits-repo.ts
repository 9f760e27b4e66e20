import type { commit } from '@lode/contracts';
import type { Queryable } from '@lode/db';
import type { NewCommit } from './commits-repo.ts';
import { commitWritesSql } from './commit-writes-sql.ts';

/** The tree row of a staged entry's file on the commit's branch ($1 draft, $2 project, $3 branch). */
const STAGED_WITH_TREE = `draft_entries d LEFT JOIN tree t ON t.project_id = $2 AND t.branch = $3 AND t.file_id = d.file_id WHERE d.draft_id = $1`;

/**
 * SQL that commits a draft's staged entries (docs/api.md, Draft commits): every statement reads them
 * from draft_entries, so a commit of any size never passes through the service's memory. Runs in the
 * commit's transaction, under the project's sequence row lock, as CommitsRepository.record does.
 */
export class StagedCommitsRepository {
  /** Entries whose version is not newer than the branch's (stale_version), as planEntries refuses them. */
  async staleEntries(tx: Queryable, draftId: string, projectId: string, branch: string): Promise<{ fileId: string; version: number; currentVersion: number }[]> {
    const { rows } = await tx.query<{ fileId: string; version: number; currentVersion: number }>(
      `SELECT d.file_id AS "fileId", d.version, t.version AS "currentVersion" FROM ${STAGED_WITH_TREE}
       AND d.action <> 'delete' AND d.version <= t.version ORDER BY d.file_id`,
      [draftId, projectId, branch],
    );
    return rows;
  }

  /** Deletions of files the branch does not hold (file_not_in_branch). */
  async absentDeletions(tx: Queryable, draftId: string, projectId: string, branch: string): Promise<string[]> {
    const { rows } = await tx.query<{ fileId: string }>(
      `SELECT d.file_id AS "fileId" FROM ${STAGED_WITH_TREE} AND d.action = 'delete' AND (t.file_id IS NULL OR t.deleted) ORDER BY d.file_id`,
      [draftId, projectId, branch],
    );
    return rows.map((row) => row.fileId);
  }

  /**
   * Inserts the commit and its entries from the draft's, moves the tree and the branch head, in one
   * statement, as CommitsRepository.record does for a commit sent whole: the recorded action follows
   * the tree (add when the file is absent or deleted), a deletion keeps the tree's last version, and
   * a file new to the tree gets its path key unless another branch gave it one. Expects entries that
   * passed staleEntries and absentDeletions.
   */
  async record(tx: Queryable, c: Omit<NewCommit, 'fileCount'>, draftId: string): Promise<{ createdAt: Date; fileCount: number }> {
    const { rows } = await tx.query<{ createdAt: Date; fileCount: number }>(
      `WITH input AS (
         SELECT d.*, t.file_id IS NOT NULL AS in_tree,
                CASE WHEN d.action = 'delete' THEN 'delete' WHEN t.file_id IS NOT NULL AND NOT t.deleted THEN 'modify' ELSE 'add' END AS recorded,
                CASE WHEN d.action = 'delete' THEN t.version ELSE d.version END AS tree_version,
                CASE WHEN d.action = 'delete' THEN t.sha256 ELSE d.sha256 END AS tree_sha256,
                CASE WHEN d.action = 'delete' THEN t.size ELSE d.size END AS tree_size
         FROM draft_entries d LEFT JOIN tree t ON t.project_id = $2 AND t.branch = $4 AND t.file_id = d.file_id
         WHERE d.draft_id = $9
         ORDER BY d.file_id
       ),
       made AS (
         INSERT INTO commits (id, project_id, sequence_num, branch, message, author_id, author_name, file_count, kind)
         SELECT $1, $2, $3, $4, $5, $6, $7, count(*), $8 FROM input
         RETURNING created_at, file_count
       ),
       ${commitWritesSql('recorded')}
       SELECT created_at AS "createdAt", file_count AS "fileCount" FROM made`,
      [c.id, c.projectId, c.sequenceNum, c.branch, c.message, c.authorId, c.authorName, c.kind, draftId],
    );
    return rows[0];
  }

  /**
   * Where each part of the commit's event begins: the first file id of each run of entries (in
   * file id order) whose JSON adds up to about `partBytes`. Postgres's JSON of an entry is a little
   * longer than JavaScript's (spaces around ':'), so a part's entries stay within `partBytes` and one
   * entry.
   */
  async partStarts(tx: Queryable, commitId: string, partBytes: number): Promise<string[]> {
    const { rows } = await tx.query<{ first: string }>(
      `SELECT min(file_id::text) AS first FROM (
         SELECT file_id, sum(octet_length(json_build_object('fileId', file_id, 'path', path, 'action', action, 'version', version,
                                                            'sha256', sha256, 'size', size)::text) + 1) OVER (ORDER BY file_id) AS running
         FROM commit_entries WHERE commit_id = $1
       ) sized
       GROUP BY (running - 1) / $2 ORDER BY 1`,
      [commitId, partBytes],
    );
    return rows.map((row) => row.first);
  }

  /** The commit's entries from `from` up to (not including) `until`, in file id order. */
  async partEntries(tx: Queryable, commitId: string, from: string, until: string | undefined): Promise<commit.CommittedEntry[]> {
    const { rows } = await tx.query<commit.CommittedEntry>(
      `SELECT file_id AS "fileId", path, action, version, sha256, size FROM commit_entries
       WHERE commit_id = $1 AND file_id >= $2 AND ($3::uuid IS NULL OR file_id < $3) ORDER BY file_id`,
      [commitId, from, until ?? null],
    );
    return rows;
  }
}
