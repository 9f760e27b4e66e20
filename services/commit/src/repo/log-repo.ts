import { isoTime, type NamedStatement, type Queryable } from '@lode/db';
import type { commit } from '@lode/contracts';
import type { Lineage } from '../domain/lineage.ts';

export interface LogRow {
  id: string;
  sequenceNum: number;
  message: string;
  fileCount: number;
  branch: string;
  kind: commit.CommitKind;
  authorId: string;
  authorName: string;
  /** ISO 8601, as the reply writes it. */
  createdAt: string;
}

const LOG_COLUMNS = `id, sequence_num AS "sequenceNum", message, file_count AS "fileCount", branch, kind,
  author_id AS "authorId", author_name AS "authorName", ${isoTime('created_at')} AS "createdAt"`;

/**
 * A page of a branch's log, prepared: every log page runs it, and its work (a page of each lineage
 * segment's index range) is as small as its parsing and planning. Every bound is an index bound
 * whether or not the page has a cursor, so a generic plan reads only the page's ranges too.
 */
const LOG_PAGE: NamedStatement = {
  name: 'commit.log_page',
  text: `WITH b AS (
     SELECT COALESCE((SELECT lineage FROM branches WHERE project_id = $1 AND name = $2), CASE WHEN $2 = 'main' THEN $3::jsonb END) AS lineage
   )
   SELECT b.lineage IS NOT NULL AS known, l.*
   FROM b LEFT JOIN LATERAL (
     SELECT c.* FROM jsonb_to_recordset(b.lineage) AS s(branch text, after int, through int)
     CROSS JOIN LATERAL (
       SELECT ${LOG_COLUMNS} FROM commits
       WHERE project_id = $1 AND branch = s.branch AND sequence_num > s.after
         AND sequence_num <= LEAST(COALESCE(s.through, 2147483647), COALESCE($4::int - 1, 2147483647))
       ORDER BY sequence_num DESC LIMIT $5
     ) c
     ORDER BY c."sequenceNum" DESC LIMIT $5
   ) l ON true
   ORDER BY l."sequenceNum" DESC`,
};

/**
 * The commit log: a branch's lineage page by page, one commit, a commit's entries. Each page is one
 * statement, whose cost follows the page, never the project's history.
 */
export class LogRepository {
  /**
   * The lineage's commits numbered below `before`, newest first. The lineage comes from the branch's
   * row in the same statement (main without a row: `mainLineage`); each segment is an index range
   * (commits_log) read backwards for at most a page, and the pages merged. `known` is false when
   * the branch does not exist.
   */
  async page(
    q: Queryable,
    projectId: string,
    branch: string,
    mainLineage: Lineage,
    before: number | undefined,
    limit: number,
  ): Promise<{ known: boolean; rows: LogRow[] }> {
    const { rows } = await q.query<{ known: boolean } & { [K in keyof LogRow]: LogRow[K] | null }>(LOG_PAGE, [
      projectId,
      branch,
      JSON.stringify(mainLineage),
      before ?? null,
      limit,
    ]);
    return { known: rows[0]?.known ?? false, rows: rows.filter((row) => row.id !== null) as LogRow[] };
  }

  async find(q: Queryable, projectId: string, commitId: string): Promise<LogRow | undefined> {
    const { rows } = await q.query<LogRow>(`SELECT ${LOG_COLUMNS} FROM commits WHERE id = $1 AND project_id = $2`, [commitId, projectId]);
    return rows[0];
  }

  /** A commit's entries after (path, fileId) in byte order; none when the commit is not the project's. */
  async entries(
    q: Queryable,
    projectId: string,
    commitId: string,
    after: readonly [string, string] | undefined,
    limit: number,
  ): Promise<commit.CommittedEntry[]> {
    const { rows } = await q.query<commit.CommittedEntry>(
      `SELECT file_id AS "fileId", path, action, version, sha256, size FROM commit_entries
       WHERE commit_id = $1 AND project_id = $2 AND ($3::text IS NULL OR (path COLLATE "C", file_id) > ($3::text COLLATE "C", $4::uuid))
       ORDER BY path COLLATE "C", file_id LIMIT $5`,
      [commitId, projectId, after?.[0] ?? null, after?.[1] ?? null, limit],
    );
    return rows;
  }
}
