import { textList, UNIT_SEPARATOR, type Queryable } from '@lode/db';
import type { Lineage } from '../domain/lineage.ts';

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
 * path key, a version's entries), so its cost follows the batch, never the size of the branch.
 *
 * The tip is the version the branch's tree holds, whose object any entry of that version names (a
 * version is immutable), whichever branch recorded it. Another version is on the branch when a
 * commit of its lineage (branches.lineage, domain/lineage.ts) recorded it.
 */
export class DownloadsRepository {
  async resolve(
    q: Queryable,
    projectId: string,
    branch: string,
    mainLineage: Lineage,
    lookups: readonly DownloadLookup[],
  ): Promise<{ branchKnown: boolean; rows: DownloadRow[] }> {
    const { rows } = await q.query<DownloadRow & { known: boolean; ord: number | null }>(
      `WITH b AS (
         SELECT COALESCE((SELECT lineage FROM branches WHERE project_id = $1 AND name = $2), CASE WHEN $2 = 'main' THEN $3::jsonb END) AS lineage
       )
       SELECT b.lineage IS NOT NULL AS known, r.*
       FROM b LEFT JOIN LATERAL (
         SELECT i.ord, t.file_id AS "fileId", t.path, t.deleted, v.version, v.sha256, v.size, v.storage_key AS "storageKey"
         FROM unnest(string_to_array($4, ',', '')::uuid[], string_to_array($5, E'\\x1f', ''), string_to_array($6, ',', '')::int[])
           WITH ORDINALITY AS i(file_id, path_key, version, ord)
         -- LIMIT 1: one index probe per entry, never a scan of the branch's tree.
         LEFT JOIN LATERAL (
           SELECT t.file_id, t.path, t.version, t.deleted FROM tree t
           WHERE t.project_id = $1 AND t.branch = $2
             AND t.file_id = COALESCE(i.file_id, (SELECT f.file_id FROM file_paths f WHERE f.project_id = $1 AND f.path_key = i.path_key))
           LIMIT 1
         ) t ON true
         LEFT JOIN LATERAL (
           SELECT e.version, e.sha256, e.size, e.storage_key
           FROM (
             -- Literal branch conditions, so each arm matches its partial index; main's first.
             SELECT commit_id, version, sha256, size, storage_key FROM commit_entries
             WHERE project_id = $1 AND branch = 'main' AND action <> 'delete' AND file_id = t.file_id AND version = COALESCE(i.version, t.version)
             UNION ALL
             SELECT commit_id, version, sha256, size, storage_key FROM commit_entries
             WHERE project_id = $1 AND branch <> 'main' AND action <> 'delete' AND file_id = t.file_id AND version = COALESCE(i.version, t.version)
           ) e
           WHERE i.version IS NULL
              OR EXISTS (SELECT FROM commits c CROSS JOIN jsonb_to_recordset(b.lineage) AS s(branch text, after int, through int)
                         WHERE c.id = e.commit_id AND s.branch = c.branch AND c.sequence_num > s.after AND (s.through IS NULL OR c.sequence_num <= s.through))
           LIMIT 1
         ) v ON t.file_id IS NOT NULL AND (i.version IS NOT NULL OR NOT t.deleted)
       ) r ON b.lineage IS NOT NULL
       ORDER BY r.ord`,
      [
        projectId,
        branch,
        JSON.stringify(mainLineage),
        // One lookup's null column is '', which string_to_array reads as no element at all; unnest
        // pads the shorter arrays with nulls, so the columns stay aligned.
        textList(lookups.map((l) => l.fileId)),
        textList(
          lookups.map((l) => l.pathKey),
          UNIT_SEPARATOR,
        ),
        textList(lookups.map((l) => l.version)),
      ],
    );
    // A batch with no lookups still answers one row: whether the branch is known.
    return { branchKnown: rows[0]?.known ?? false, rows: rows.filter((row) => row.ord !== null).map(({ known: _known, ord: _ord, ...row }) => row) };
  }
}
