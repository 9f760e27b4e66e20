import { isoTime, type Queryable } from '@lode/db';
import type { TreePageRow } from './commit-rows.ts';

/** A subfolder of the listed folder, with its live files at any depth (tree_folders). */
export interface FolderRow {
  type: 'folder';
  name: string;
  fileCount: number;
  totalSize: number;
}

export interface FolderFileRow extends TreePageRow {
  type: 'file';
}

/** Where a page starts: after this subfolder name, or (subfolders all listed) after this file path. */
export type FolderPosition = { type: 'folder'; name: string } | { type: 'file'; path: string };

/** The folder listed, as `folder` (its path with the trailing '/', '' for the root) and as its own tree_folders row. */
export interface ListedFolder {
  folder: string;
  /** Its parent and name in tree_folders; null for the root, which always exists. */
  row: { parent: string; name: string } | null;
}

type Row = { known: boolean; found: boolean; type: 'folder' | 'file' | null; name: string | null; fileCount: number | null; totalSize: number | null } & {
  [K in keyof TreePageRow]: TreePageRow[K] | null;
};

/**
 * One level of a branch's tree, page by page: its subfolders by name (tree_folders' key), then its
 * live files by path (index tree_live_by_folder), each half one index range. The folder's path is
 * matched exactly, letter case included, as the tree's `prefix` is.
 */
export class FolderPagesRepository {
  /**
   * Up to `limit` children after `after` (from the first when undefined). One statement: `known` is
   * false when the branch does not exist (main always does), `found` when the folder holds no live
   * file on it (the root always does).
   */
  async page(
    q: Queryable,
    projectId: string,
    branch: string,
    listed: ListedFolder,
    after: FolderPosition | undefined,
    limit: number,
  ): Promise<{ known: boolean; found: boolean; rows: (FolderRow | FolderFileRow)[] }> {
    // Past the subfolders, a page starts among the files: null skips the subfolders' half.
    const afterName = after === undefined ? '' : after.type === 'folder' ? after.name : null;
    const afterPath = after?.type === 'file' ? after.path : '';
    const { rows } = await q.query<Row>(
      `WITH b AS (
         SELECT $2 = 'main' OR EXISTS (SELECT FROM branches WHERE project_id = $1 AND name = $2) AS known,
                $4::text IS NULL OR EXISTS (SELECT FROM tree_folders WHERE project_id = $1 AND branch = $2 AND parent = $4 AND name = $5) AS found
       )
       SELECT b.known, b.found, e.* FROM b LEFT JOIN LATERAL (
         (SELECT 'folder' AS type, name::text, file_count AS "fileCount", total_size AS "totalSize",
                 NULL::uuid AS "fileId", NULL::text AS path, NULL::int AS version, NULL::text AS sha256, NULL::bigint AS size,
                 NULL::int AS "commitSeq", NULL::text AS "updatedAt"
          FROM tree_folders
          WHERE project_id = $1 AND branch = $2 AND parent = $3 AND $6::text IS NOT NULL AND name > $6
          ORDER BY name LIMIT $8)
         UNION ALL
         (SELECT 'file', NULL, NULL, NULL,
                 t.file_id, t.path, t.version, t.sha256, t.size, t.commit_seq, ${isoTime('c.created_at')}
          FROM tree t JOIN commits c ON c.project_id = t.project_id AND c.sequence_num = t.commit_seq
          WHERE t.project_id = $1 AND t.branch = $2 AND NOT t.deleted
            AND regexp_replace(t.path, '[^/]*$', '') COLLATE "C" = $3 AND t.path COLLATE "C" > $7::text COLLATE "C"
          ORDER BY t.path COLLATE "C" LIMIT $8)
       ) e ON b.known AND b.found
       ORDER BY e.type DESC, e.name COLLATE "C", e.path COLLATE "C"
       LIMIT $8`,
      [projectId, branch, listed.folder, listed.row?.parent ?? null, listed.row?.name ?? null, afterName, afterPath, limit],
    );
    const first = rows[0];
    return { known: first?.known ?? false, found: first?.found ?? false, rows: rows.filter((row) => row.type !== null).map(child) };
  }
}

function child(row: Row): FolderRow | FolderFileRow {
  if (row.type === 'folder') return { type: 'folder', name: row.name as string, fileCount: row.fileCount as number, totalSize: row.totalSize as number };
  const { fileId, path, version, sha256, size, commitSeq, updatedAt } = row as unknown as TreePageRow;
  return { type: 'file', fileId, path, version, sha256, size, commitSeq, updatedAt };
}
