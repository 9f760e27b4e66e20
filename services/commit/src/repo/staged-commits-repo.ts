import type { Queryable } from '@lode/db';
import type { NewCommit } from './commit-rows.ts';
import { commitWritesSql, MOVE_BRANCH_HEAD_SQL } from './commit-writes-sql.ts';
import { entryJson } from './event-entry-sql.ts';

/** The commit a draft's batches are written into: $1 id, $2 project, $3 sequence number, $4 branch of every statement. */
export type StagedCommitTarget = Pick<NewCommit, 'id' | 'projectId' | 'sequenceNum' | 'branch'>;

/** An entry whose version is not newer than the branch's (stale_version). */
export interface StaleEntry {
  fileId: string;
  version: number;
  currentVersion: number;
}

/** What one batch of a draft's staged entries held, and where its event parts begin if it was written. */
export interface StagedBatch {
  /** Staged entries in the batch: fewer than asked only in the draft's last. */
  count: number;
  /** The batch's last file id: the next batch begins after it. */
  last: string | null;
  /** The first `listed` stale entries of the batch, and how many it has. */
  stale: StaleEntry[];
  staleCount: number;
  /** The first `listed` deletions of files the branch lacks (file_not_in_branch), and how many. */
  absent: string[];
  absentCount: number;
  /** The first file id of each event part of the entries written (none when nothing was). */
  partStarts: string[];
}

/**
 * SQL that commits a draft's staged entries (docs/api.md, Draft commits) batch by batch, inside the
 * commit's transaction and under the project's sequence row lock, as CommitsRepository.record does
 * for a commit sent whole: every statement reads a bounded range of draft_entries or of the commit's
 * entries, so neither the service's memory nor any one statement grows with the draft.
 */
export class StagedCommitsRepository {
  /**
   * Checks the batch of up to `limit` staged entries after `after` (in file id order) against the
   * branch's tree — stale versions, deletions of files it lacks — and, when `write` is set and the
   * batch has neither, writes it: the entries, the tree rows and path keys, as commitWritesSql does.
   * The recorded action follows the tree (add when the file is absent or deleted), a deletion keeps
   * the tree's last version. Each file's tree row is one index probe (LATERAL … LIMIT 1): the
   * branch's tree grows with every batch, and is never scanned whole. Answers the batch's problems
   * (the first `listed` of each) and, when written, where its commit.created parts of about
   * `partBytes` of entry JSON begin: at its first entry and wherever the running size of the
   * entries' JSON crosses a multiple of `partBytes`. One scan of the batch computes all of it.
   */
  async recordBatch(
    tx: Queryable,
    target: StagedCommitTarget,
    draftId: string,
    batch: { after: string | undefined; limit: number; write: boolean; partBytes: number; listed: number },
  ): Promise<StagedBatch> {
    const { rows } = await tx.query<StagedBatch>(
      `WITH checked AS (
         SELECT d.*, t.file_id IS NOT NULL AS in_tree, t.version AS current_version, r.recorded, b.entry_bytes,
                CASE WHEN d.action = 'delete' THEN t.version ELSE d.version END AS tree_version,
                CASE WHEN d.action = 'delete' THEN t.sha256 ELSE d.sha256 END AS tree_sha256,
                CASE WHEN d.action = 'delete' THEN t.size ELSE d.size END AS tree_size,
                coalesce(d.action <> 'delete' AND d.version <= t.version, false) AS stale,
                d.action = 'delete' AND (t.file_id IS NULL OR t.deleted) AS absent,
                -- The rows come in file id order from the index (the nested loop keeps it): no sort.
                sum(b.entry_bytes) OVER (ORDER BY d.file_id) AS running
         FROM (
           SELECT * FROM draft_entries WHERE draft_id = $5 AND ($6::uuid IS NULL OR file_id > $6) ORDER BY file_id LIMIT $7
         ) d
         LEFT JOIN LATERAL (
           SELECT file_id, version, sha256, size, deleted FROM tree WHERE project_id = $2 AND branch = $4 AND file_id = d.file_id LIMIT 1
         ) t ON true
         CROSS JOIN LATERAL (
           SELECT CASE WHEN d.action = 'delete' THEN 'delete' WHEN t.file_id IS NOT NULL AND NOT t.deleted THEN 'modify' ELSE 'add' END AS recorded
         ) r
         CROSS JOIN LATERAL (SELECT octet_length(${entryJson('d', 'r.recorded')}) + 1 AS entry_bytes) b
       ),
       summary AS (
         SELECT count(*)::int AS count, max(file_id::text COLLATE "C") AS last,
                count(*) FILTER (WHERE stale)::int AS "staleCount", count(*) FILTER (WHERE absent)::int AS "absentCount",
                array_agg(json_build_object('fileId', file_id, 'version', version, 'currentVersion', current_version) ORDER BY file_id) FILTER (WHERE stale) AS stale,
                array_agg(file_id::text ORDER BY file_id) FILTER (WHERE absent) AS absent,
                array_agg(file_id::text ORDER BY file_id) FILTER (
                  WHERE running = entry_bytes OR (running - entry_bytes - 1) / $9 <> (running - 1) / $9
                ) AS part_starts
         FROM checked
       ),
       written AS (
         SELECT $8 AND "staleCount" + "absentCount" = 0 AS written FROM summary
       ),
       -- Checked rows are in file id order, as the writes below want them (each index walked once). Not
       -- materialized: each write reads the checked rows themselves, not a copy of them.
       input AS NOT MATERIALIZED (
         SELECT * FROM checked WHERE (SELECT written FROM written)
       ),
       ${commitWritesSql('recorded')}
       SELECT count, last, "staleCount", "absentCount",
              coalesce(to_json(stale[1:$10]), '[]') AS stale, coalesce(absent[1:$10], '{}') AS absent,
              CASE WHEN written THEN coalesce(part_starts, '{}') ELSE '{}' END AS "partStarts"
       FROM summary, written`,
      [target.id, target.projectId, target.sequenceNum, target.branch, draftId, batch.after ?? null, batch.limit, batch.write, batch.partBytes, batch.listed],
    );
    return rows[0];
  }

  /** The commit's row, once its batches are written (the entries' count is known then), and the branch head moved to it. */
  async recordCommit(tx: Queryable, c: NewCommit): Promise<Date> {
    const { rows } = await tx.query<{ createdAt: Date }>(
      `WITH made AS (
         INSERT INTO commits (id, project_id, sequence_num, branch, message, author_id, author_name, file_count, kind)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         RETURNING created_at
       ),
       ${MOVE_BRANCH_HEAD_SQL}
       SELECT created_at AS "createdAt" FROM made`,
      [c.id, c.projectId, c.sequenceNum, c.branch, c.message, c.authorId, c.authorName, c.fileCount, c.kind],
    );
    return rows[0].createdAt;
  }

  /**
   * Writes the commit.created parts that begin at `starts` (numbered from `firstPart`, up to the
   * entries before `until`) into the outbox, built from the commit's entries in SQL, so a part never
   * passes through the service. A part is the event's header (`header`: its JSON, which the part
   * extends) with `part`, `parts` and its entries in file id order; the outbox ids follow the parts'
   * order, as writeOutbox's do.
   */
  async writeEventParts(
    tx: Queryable,
    event: { subject: string; commitId: string; header: object; parts: number; traceContext: string | null },
    range: { starts: readonly string[]; firstPart: number; until: string | undefined },
  ): Promise<void> {
    // The header's JSON without its closing brace; the SQL below closes it after the part's fields.
    const opening = `${JSON.stringify(event.header).slice(0, -1)},"part":`;
    await tx.query(
      `INSERT INTO outbox (subject, event_id, payload, trace_context)
       SELECT $1, $2 || '.' || part, $3 || part || ',"parts":' || $4 || ',"entries":[' || string_agg(entry, ',' ORDER BY file_id) || ']}', $5::jsonb
       FROM (
         SELECT e.file_id, ${entryJson('e', 'e.action')} AS entry, $6::int - 1 + width_bucket(e.file_id, $7::uuid[]) AS part
         FROM commit_entries e
         WHERE e.commit_id = $2::uuid AND e.file_id >= ($7::uuid[])[1] AND ($8::uuid IS NULL OR e.file_id < $8)
       ) e
       GROUP BY part
       ORDER BY part`,
      [event.subject, event.commitId, opening, event.parts, event.traceContext, range.firstPart, range.starts, range.until ?? null],
    );
  }
}
