import { textList, UNIT_SEPARATOR, type Queryable } from '@lode/db';

/** A file asked for: by id or by path key (an id wins), at a version or (null) the tip. */
export interface DownloadLookup {
  fileId: string | null;
  pathKey: string | null;
  version: number | null;
}

/** What the branch holds for one lookup, in lookup order. */
export interface DownloadRow {
  /** The file on the branch's tree, or null when the tree has none so named. */
  fileId: string | null;
  path: string | null;
  deleted: boolean | null;
  /** The version found, with its object; null when the branch's lineage has no such version. */
  version: number | null;
  sha256: string | null;
  size: number | null;
  storageKey: string | null;
}

/**
 * Batch download URLs' lookup: every entry in one statement, each by index probes (the tree's key, a
 * path key, a version's entry), so its cost follows the batch, never the size of the branch.
 *
 * Lineage, as commits record it today: a branch's tree starts as a copy of main's at its base_seq,
 * then moves on its own. So the tip is the version the branch's tree holds, whose object is in the
 * entry of the commit that last changed it (tree.commit_seq, on whichever branch that was); and an
 * older version is on the branch if main committed it up to base_seq or the branch committed it.
 */
export class DownloadsRepository {
  async resolve(q: Queryable, projectId: string, branch: string, lookups: readonly DownloadLookup[]): Promise<{ branchKnown: boolean; rows: DownloadRow[] }> {
    const { rows } = await q.query<DownloadRow & { known: boolean; ord: number | null }>(
      `WITH b AS (
         SELECT $2 = 'main' OR br.name IS NOT NULL AS known, br.base_seq
         FROM (SELECT 1) one LEFT JOIN branches br ON br.project_id = $1 AND br.name = $2
       )
       SELECT b.known, r.*
       FROM b LEFT JOIN LATERAL (
         SELECT i.ord, t.file_id AS "fileId", t.path, t.deleted, v.version, v.sha256, v.size, v.storage_key AS "storageKey"
         FROM unnest(string_to_array($3, ',', '')::uuid[], string_to_array($4, E'\\x1f', ''), string_to_array($5, ',', '')::int[])
           WITH ORDINALITY AS i(file_id, path_key, version, ord)
         LEFT JOIN LATERAL (
           SELECT t.file_id, t.path, t.version, t.commit_seq, t.deleted FROM tree t
           WHERE t.project_id = $1 AND t.branch = $2
             AND t.file_id = COALESCE(i.file_id, (SELECT f.file_id FROM file_paths f WHERE f.project_id = $1 AND f.path_key = i.path_key))
           LIMIT 1
         ) t ON true
         LEFT JOIN LATERAL (
           SELECT e.version, e.sha256, e.size, e.storage_key
           FROM commits c JOIN commit_entries e ON e.commit_id = c.id AND e.file_id = t.file_id
           WHERE i.version IS NULL AND NOT t.deleted AND c.project_id = $1 AND c.sequence_num = t.commit_seq
           UNION ALL
           SELECT e.version, e.sha256, e.size, e.storage_key
           FROM commit_entries e JOIN commits c ON c.id = e.commit_id
           WHERE i.version IS NOT NULL AND e.project_id = $1 AND e.branch = 'main' AND e.file_id = t.file_id AND e.version = i.version
             AND e.action <> 'delete' AND ($2 = 'main' OR c.sequence_num <= b.base_seq)
           UNION ALL
           SELECT e.version, e.sha256, e.size, e.storage_key FROM commit_entries e
           WHERE i.version IS NOT NULL AND $2 <> 'main' AND e.project_id = $1 AND e.branch = $2 AND e.file_id = t.file_id AND e.version = i.version
             AND e.action <> 'delete'
           LIMIT 1
         ) v ON t.file_id IS NOT NULL
       ) r ON b.known
       ORDER BY r.ord`,
      [
        projectId,
        branch,
        // One lookup's null column is '', which string_to_array reads as no element at all; unnest
        // pads the shorter arrays with nulls, so the columns stay aligned.
        textList(lookups.map((l) => l.fileId)),
        textList(lookups.map((l) => l.pathKey), UNIT_SEPARATOR),
        textList(lookups.map((l) => l.version)),
      ],
    );
    // A batch with no lookups still answers one row: whether the branch is known.
    return { branchKnown: rows[0]?.known ?? false, rows: rows.filter((row) => row.ord !== null).map(({ known: _known, ord: _ord, ...row }) => row) };
  }
}
