import { preparedForList, type NamedStatement, type Queryable } from '@lode/db';
import type { commit } from '@lode/contracts';
import type { StagedRange } from './sync-rows.ts';

export interface StagedEntry extends commit.CommittedEntry {
  pathKey: string;
}

// Run at every commit.created part, so prepared once per connection: the staging insert for a few
// entries (preparedForList), the others always, as each walks the primary key from its first column.
const STAGE: NamedStatement = {
  name: 'sync.stage',
  text: `INSERT INTO staged_entries (project_id, commit_seq, file_id, path, path_key, action, version, sha256, size)
         SELECT $1, $2, * FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::bigint[])
         ON CONFLICT DO NOTHING`,
};

const NEXT_RANGE: NamedStatement = {
  name: 'sync.next_range',
  text: `SELECT file_id AS through, count(*) OVER ()::int AS count FROM (
           SELECT file_id FROM staged_entries WHERE project_id = $1 AND commit_seq = $2 AND file_id > $3 ORDER BY file_id LIMIT $4
         ) batch ORDER BY file_id DESC LIMIT 1`,
};

const DISCARD: NamedStatement = { name: 'sync.discard_staged', text: 'DELETE FROM staged_entries WHERE project_id = $1' };

/** The parts of a commit received so far (table `staged_entries`), applied together with the last. */
export class StagingRepository {
  async add(tx: Queryable, projectId: string, seq: number, entries: readonly StagedEntry[]): Promise<void> {
    const column = <T>(pick: (e: StagedEntry) => T): T[] => entries.map(pick);
    await tx.query(preparedForList(STAGE, entries.length), [
      projectId,
      seq,
      column((e) => e.fileId),
      column((e) => e.path),
      column((e) => e.pathKey),
      column((e) => e.action),
      column((e) => e.version),
      column((e) => e.sha256),
      column((e) => e.size),
    ]);
  }

  /**
   * The batch of at most `size` staged entries after `after`: its last file id and how many it
   * holds, or null when none is left. Walks the primary key, so each batch is an index range
   * whatever the statistics say.
   */
  async nextRange(tx: Queryable, projectId: string, seq: number, after: string, size: number): Promise<(StagedRange & { count: number }) | null> {
    const { rows } = await tx.query<{ through: string; count: number }>(NEXT_RANGE, [projectId, seq, after, size]);
    return rows[0] ? { after, ...rows[0] } : null;
  }

  async discard(tx: Queryable, projectId: string): Promise<void> {
    await tx.query(DISCARD, [projectId]);
  }
}
