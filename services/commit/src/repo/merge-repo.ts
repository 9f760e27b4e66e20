import { textList, type Queryable } from '@lode/db';
import type { Lineage } from '../domain/lineage.ts';
import type { Candidate, Side } from '../domain/merge-plan.ts';

type SideColumns<P extends string> = { [K in keyof Side as `${P}${Capitalize<K>}`]: Side[K] | null };
type CandidateRow = { fileId: string; path: string } & SideColumns<'s'> & SideColumns<'t'>;

function side(version: number | null, sha256: string | null, size: number | null, deleted: boolean | null, commitSeq: number | null): Side | undefined {
  return version === null || sha256 === null || size === null || deleted === null || commitSeq === null
    ? undefined
    : { version, sha256, size, deleted, commitSeq };
}

/** What a merge reads of the two branches' trees and of the history before their fork point. */
export class MergeRepository {
  /**
   * Every file either tree changed after the fork point, with its state on both. Below it the two
   * lineages hold the same commits, so a file neither changed since is the same on both. One pass
   * over each tree: a merge costs the size of the two branches, not of the project's history.
   */
  async candidates(q: Queryable, projectId: string, source: string, target: string, forkPoint: number): Promise<Candidate[]> {
    const { rows } = await q.query<CandidateRow>(
      `SELECT COALESCE(s.file_id, t.file_id) AS "fileId", COALESCE(s.path, t.path) AS path,
              s.version AS "sVersion", s.sha256 AS "sSha256", s.size AS "sSize", s.deleted AS "sDeleted", s.commit_seq AS "sCommitSeq",
              t.version AS "tVersion", t.sha256 AS "tSha256", t.size AS "tSize", t.deleted AS "tDeleted", t.commit_seq AS "tCommitSeq"
       FROM (SELECT * FROM tree WHERE project_id = $1 AND branch = $2) s
       FULL JOIN (SELECT * FROM tree WHERE project_id = $1 AND branch = $3) t ON t.file_id = s.file_id
       WHERE s.commit_seq > $4 OR t.commit_seq > $4
       ORDER BY COALESCE(s.path, t.path) COLLATE "C"`,
      [projectId, source, target, forkPoint],
    );
    return rows.map((r) => ({
      fileId: r.fileId,
      path: r.path,
      source: side(r.sVersion, r.sSha256, r.sSize, r.sDeleted, r.sCommitSeq),
      target: side(r.tVersion, r.tSha256, r.tSize, r.tDeleted, r.tCommitSeq),
    }));
  }

  /**
   * The files whose given version is one the lineage has had (committed on one of its commits),
   * through the indexes on a file's versions (main's and other branches'): one probe per file.
   */
  async versionsHeld(q: Queryable, projectId: string, lineage: Lineage, versions: readonly { fileId: string; version: number }[]): Promise<Set<string>> {
    const { rows } = await q.query<{ fileId: string }>(
      `SELECT f.file_id AS "fileId"
       FROM unnest(string_to_array($2, ',')::uuid[], string_to_array($3, ',')::int[]) AS f(file_id, version)
       WHERE EXISTS (
         SELECT FROM (
           SELECT commit_id FROM commit_entries
           WHERE project_id = $1 AND file_id = f.file_id AND version = f.version AND branch = 'main' AND action <> 'delete'
           UNION ALL
           SELECT commit_id FROM commit_entries
           WHERE project_id = $1 AND file_id = f.file_id AND version = f.version AND branch <> 'main' AND action <> 'delete'
         ) e
         JOIN commits c ON c.id = e.commit_id
         JOIN jsonb_to_recordset($4::jsonb) AS s(branch text, after int, through int)
           ON c.branch = s.branch AND c.sequence_num > s.after AND (s.through IS NULL OR c.sequence_num <= s.through)
       )`,
      [projectId, textList(versions.map((v) => v.fileId)), textList(versions.map((v) => v.version)), JSON.stringify(lineage)],
    );
    return new Set(rows.map((r) => r.fileId));
  }

  /**
   * Each file's version at the fork point on the lineage (null: absent or deleted then): its last
   * entry among the lineage's commits up to the fork point, found through the indexes on a file's
   * versions (main's, other branches') and deletions, so a file costs its own few entries.
   */
  async versionsAt(q: Queryable, projectId: string, lineage: Lineage, forkPoint: number, fileIds: readonly string[]): Promise<Map<string, number | null>> {
    const { rows } = await q.query<{ fileId: string; version: number | null }>(
      `SELECT f.file_id AS "fileId", b.version
       FROM unnest(string_to_array($2, ',')::uuid[]) AS f(file_id)
       LEFT JOIN LATERAL (
         SELECT CASE WHEN e.action = 'delete' THEN NULL ELSE e.version END AS version
         FROM (
           SELECT commit_id, version, action FROM commit_entries
           WHERE project_id = $1 AND file_id = f.file_id AND branch = 'main' AND action <> 'delete'
           UNION ALL
           SELECT commit_id, version, action FROM commit_entries
           WHERE project_id = $1 AND file_id = f.file_id AND branch <> 'main' AND action <> 'delete'
           UNION ALL
           SELECT commit_id, version, action FROM commit_entries
           WHERE project_id = $1 AND file_id = f.file_id AND action = 'delete'
         ) e
         JOIN commits c ON c.id = e.commit_id
         JOIN jsonb_to_recordset($3::jsonb) AS s(branch text, after int, through int)
           ON c.branch = s.branch AND c.sequence_num > s.after AND c.sequence_num <= LEAST(COALESCE(s.through, $4), $4)
         ORDER BY c.sequence_num DESC LIMIT 1
       ) b ON true`,
      [projectId, textList(fileIds), JSON.stringify(lineage), forkPoint],
    );
    return new Map(rows.map((r) => [r.fileId, r.version]));
  }
}
