import { isoTime, type NamedStatement, type Queryable } from '@lode/db';
import type { TreePageRow } from './commit-rows.ts';

/** A page of a branch's live files after $3 (a path, or none), $4 rows at most, where `range` bounds the paths further. */
const treePage = (range: string) => `WITH b AS (SELECT $2 = 'main' OR EXISTS (SELECT FROM branches WHERE project_id = $1 AND name = $2) AS known)
  SELECT b.known, f.* FROM b LEFT JOIN LATERAL (
    SELECT t.file_id AS "fileId", t.path, t.version, t.sha256, t.size, t.commit_seq AS "commitSeq", ${isoTime('c.created_at')} AS "updatedAt"
    FROM tree t JOIN commits c ON c.project_id = t.project_id AND c.sequence_num = t.commit_seq
    WHERE t.project_id = $1 AND t.branch = $2 AND NOT t.deleted AND ${range}
    ORDER BY t.path COLLATE "C" LIMIT $4
  ) f ON b.known
  ORDER BY f.path COLLATE "C"`;

/**
 * Tree pages are prepared: every page runs one, and its work (a page of one index range) is as small
 * as its parsing and planning. A page under a folder has a statement of its own, so that each
 * statement's bounds are index bounds whatever its parameters: a generic plan Postgres may keep for
 * a prepared statement then still stops at the folder's end instead of filtering the rest of the tree.
 */
const TREE_PAGE: NamedStatement = { name: 'commit.tree_page', text: treePage(`t.path COLLATE "C" > COALESCE($3::text, '') COLLATE "C"`) };
/** Under the folder $5 (ending in `/`), whose paths all sort below $6. */
const FOLDER_TREE_PAGE: NamedStatement = {
  name: 'commit.folder_tree_page',
  text: treePage(
    `t.path COLLATE "C" > COALESCE($3::text, $5::text) COLLATE "C" AND t.path COLLATE "C" >= $5::text COLLATE "C" AND t.path COLLATE "C" < $6::text COLLATE "C"`,
  ),
};

/** A branch's live files in path order (byte order), page by page (index tree_live_by_path). */
export class TreePagesRepository {
  /**
   * The live files after `after`, under `prefix` (a folder ending in `/`) when given, each with the
   * time of the commit that last changed it. One statement: `known` is false when the branch does
   * not exist (main always does).
   */
  async page(
    q: Queryable,
    projectId: string,
    branch: string,
    prefix: string | undefined,
    after: string | undefined,
    limit: number,
  ): Promise<{ known: boolean; rows: TreePageRow[] }> {
    const first = [projectId, branch, after ?? null, limit];
    // Every path under `a/` sorts before `a0`: '0' is the byte after '/'.
    const [statement, values] = prefix === undefined ? [TREE_PAGE, first] : [FOLDER_TREE_PAGE, [...first, prefix, `${prefix.slice(0, -1)}0`]];
    const { rows } = await q.query<{ known: boolean } & { [K in keyof TreePageRow]: TreePageRow[K] | null }>(statement, values);
    return { known: rows[0]?.known ?? false, rows: rows.filter((row) => row.fileId !== null) as TreePageRow[] };
  }

  /**
   * A branch's live files and bytes, from its top-level folders' aggregates (tree_folders) and the
   * files at its root (tree_live_by_folder), and the project's committed versions (the two partial
   * history indexes) and last commit number: one statement, whose cost follows the branch's top
   * level and the project's own history, never other projects'. Null when the branch does not exist.
   */
  async stats(q: Queryable, projectId: string, branch: string): Promise<ProjectStatsRow | null> {
    const { rows } = await q.query<ProjectStatsRow & { known: boolean }>(
      `WITH folders AS (
         SELECT COALESCE(sum(file_count), 0) AS files, COALESCE(sum(total_size), 0) AS size
         FROM tree_folders WHERE project_id = $1 AND branch = $2 AND parent = ''
       ), root AS (
         SELECT count(*) AS files, COALESCE(sum(size), 0) AS size
         FROM tree WHERE project_id = $1 AND branch = $2 AND NOT deleted AND (regexp_replace(path, '[^/]*$', '')) COLLATE "C" = ''
       )
       SELECT $2 = 'main' OR EXISTS (SELECT FROM branches WHERE project_id = $1 AND name = $2) AS known,
         (folders.files + root.files)::bigint AS "fileCount",
         (folders.size + root.size)::bigint AS "totalSize",
         ((SELECT count(*) FROM commit_entries WHERE project_id = $1 AND branch = 'main' AND action <> 'delete')
          + (SELECT count(*) FROM commit_entries WHERE project_id = $1 AND branch <> 'main' AND action <> 'delete'))::bigint AS "versionCount",
         COALESCE((SELECT last_seq FROM project_sequences WHERE project_id = $1), 0) AS "latestSequence"
       FROM folders, root`,
      [projectId, branch],
    );
    const row = rows[0];
    return row?.known ? { fileCount: row.fileCount, totalSize: row.totalSize, versionCount: row.versionCount, latestSequence: row.latestSequence } : null;
  }
}

export interface ProjectStatsRow {
  fileCount: number;
  totalSize: number;
  versionCount: number;
  latestSequence: number;
}
