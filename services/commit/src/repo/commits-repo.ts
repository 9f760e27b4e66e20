import { pathKey } from '@lode/contracts';
import { textList, UNIT_SEPARATOR, type NamedStatement, type Queryable } from '@lode/db';
import type { PlannedEntry, TreeState } from '../domain/commit-plan.ts';
import type { Lineage } from '../domain/lineage.ts';
import type { NewCommit } from './commit-rows.ts';
import { commitWritesSql, MOVE_BRANCH_HEAD_SQL } from './commit-writes-sql.ts';
import { entryJson, isoTimestamp } from './event-entry-sql.ts';

/** A branch that its first commit creates in the sequence statement: forked from none, created by no one. */
export interface RootBranch {
  name: string;
  createdAfter: number;
  lineage: Lineage;
  forkedFrom: null;
  createdBy: null;
}

/** A commit's commit.created event as CommitsRepository.record writes it. */
export interface CommitEvent {
  subject: string;
  /** The event's fields but createdAt, part, parts and entries. */
  header: object;
  /** Bytes of entries' JSON per part. */
  partBytes: number;
  /** The outbox's trace_context (JSON), or null. */
  traceContext: string | null;
}

/**
 * A commit of at most this many entries runs its tree read and its writes as prepared statements:
 * a dozen CTEs cost more to parse and plan than a small commit's writes. A larger one is planned for
 * its own entries at every call: after a run of small commits Postgres keeps one generic plan for a
 * prepared statement, and the plan that suits a few entries took a 25,000-entry commit past the
 * statement timeout.
 */
const PREPARED_MAX_ENTRIES = 16;

/** `statement` prepared for a commit of `entries` entries, or its text alone for a larger one. */
const sizedFor = (statement: NamedStatement, entries: number): NamedStatement | string => (entries <= PREPARED_MAX_ENTRIES ? statement : statement.text);

const RECORD_COMMIT: NamedStatement = {
  name: 'commit.record',
  text: `WITH made AS (
     INSERT INTO commits (id, project_id, sequence_num, branch, message, author_id, author_name, file_count, kind)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $26)
     RETURNING created_at
   ),
   input AS (
     SELECT t.*, ($23::uuid[])[uploader] AS uploader_id, ($24::text[])[uploader] AS uploader_name
     FROM unnest(string_to_array($9, ',')::uuid[], string_to_array($10, E'\\x1f'), string_to_array($11, ','),
                 string_to_array($12, ',', '')::int[], string_to_array($13, ',', '')::uuid[], string_to_array($14, ',', ''),
                 string_to_array($15, ',', '')::bigint[], string_to_array($16, E'\\x1f', ''), string_to_array($17, ',', '')::int[],
                 string_to_array($18, ',', '')::timestamptz[], string_to_array($19, ',')::int[], string_to_array($20, ','),
                 string_to_array($21, ',')::bigint[], string_to_array($22, ',')::bool[], string_to_array($25, E'\\x1f'))
       WITH ORDINALITY AS t(file_id, path, action, version, version_id, sha256, size, storage_key, uploader, version_created_at,
            tree_version, tree_sha256, tree_size, in_tree, path_key, n)
     -- In the indexes' order: the inserts below then walk each index once instead of at random.
     ORDER BY file_id
   ),
   ${commitWritesSql('action')},
   ${MOVE_BRANCH_HEAD_SQL},
   event_entries AS (
     SELECT n, entry, (sum(octet_length(entry) + 1) OVER (ORDER BY n) - 1) / $29 + 1 AS part
     FROM (SELECT i.n, ${entryJson('i', 'i.action')} AS entry FROM input i) e
   ),
   -- Read once, so inlined rather than stored: the parts leave their aggregate in order, sorted once.
   event_parts AS (
     SELECT part, count(*) OVER () AS parts, string_agg(entry, ',' ORDER BY n) AS entries FROM event_entries GROUP BY part
   ),
   outboxed AS (
     INSERT INTO outbox (subject, event_id, payload, trace_context)
     SELECT $27, $1::text || '.' || part,
            $28 || ',"createdAt":"' || ${isoTimestamp('made.created_at')} || '","part":' || part ||
              ',"parts":' || parts || ',"entries":[' || entries || ']}',
            $30::jsonb
     FROM event_parts, made
     ORDER BY part
   )
   SELECT FROM made`,
};

// The branch's insert reads from `next`, so it runs once the row lock is held.
const NEXT_SEQUENCE: NamedStatement = {
  name: 'commit.next_sequence',
  text: `WITH next AS (
           INSERT INTO project_sequences (project_id, last_seq) VALUES ($1, 1)
           ON CONFLICT (project_id) DO UPDATE SET last_seq = project_sequences.last_seq + 1
           RETURNING last_seq, branch_changes
         ),
         created AS (
           INSERT INTO branches (project_id, name, created_after, lineage)
           SELECT $1, $2, $3, $4 FROM next WHERE $2::text IS NOT NULL
           ON CONFLICT DO NOTHING
         )
         SELECT last_seq AS "sequenceNum", branch_changes AS "branchChanges" FROM next`,
};

// One index probe per file (LATERAL … LIMIT 1), so a large branch is never scanned for a few files.
const TREE_STATES: NamedStatement = {
  name: 'commit.tree_states',
  text: `SELECT t.* FROM unnest(string_to_array($3, ',')::uuid[]) AS r(file_id)
         CROSS JOIN LATERAL (
           SELECT file_id AS "fileId", version, sha256, size, deleted FROM tree
           WHERE project_id = $1 AND branch = $2 AND file_id = r.file_id LIMIT 1
         ) t`,
};

/**
 * SQL for commits, their entries, branches and the tree. The writes run inside the commit's
 * transaction: the caller holds the project's sequence row lock, so nothing here races. The reads
 * (latestSequence, treeStates) also answer other services, outside any commit, as of that moment.
 */
export class CommitsRepository {
  /**
   * Takes the project's next sequence number and holds its row lock until the transaction ends, so a
   * project's commits (and branch changes) are serialized and a rolled-back commit gives its number
   * back: no gaps. This statement's snapshot predates the lock it may have waited for: what must see
   * everything committed before it (a branch created or deleted meanwhile) runs after, on its own.
   * Also answers the project's branch changes: the row it returns is the one locked, which no other
   * transaction changes until this one ends. With `root`, also creates that branch unless it exists,
   * once the lock is held: only a branch forked from none and created by no one (main), whose row
   * reads nothing this statement's older snapshot could miss; an existing row, committed or not,
   * is found whatever the snapshot.
   */
  async nextSequence(tx: Queryable, projectId: string, root?: RootBranch): Promise<{ sequenceNum: number; branchChanges: number }> {
    const { rows } = await tx.query<{ sequenceNum: number; branchChanges: number }>(NEXT_SEQUENCE, [
      projectId,
      root?.name ?? null,
      root?.createdAfter ?? null,
      root ? JSON.stringify(root.lineage) : null,
    ]);
    return rows[0];
  }

  /**
   * The project's last commit number and how many branch changes it has had (a commit's event
   * carries the count: docs/architecture.md, Lineage); zeros before either.
   */
  async latestSequence(q: Queryable, projectId: string): Promise<{ sequenceNum: number; branchChanges: number }> {
    const { rows } = await q.query<{ sequenceNum: number; branchChanges: number }>(
      'SELECT last_seq AS "sequenceNum", branch_changes AS "branchChanges" FROM project_sequences WHERE project_id = $1',
      [projectId],
    );
    return rows[0] ?? { sequenceNum: 0, branchChanges: 0 };
  }

  async treeStates(tx: Queryable, projectId: string, branch: string, fileIds: readonly string[]): Promise<Map<string, TreeState>> {
    const { rows } = await tx.query<TreeState>(sizedFor(TREE_STATES, fileIds.length), [projectId, branch, textList(fileIds)]);
    return new Map(rows.map((row) => [row.fileId, row]));
  }

  /**
   * The versions of these files any branch's tree holds (its tip, a deleted file's last version
   * too) or any draft stages: one probe of the tree's key per (branch, file), and of each draft's
   * entries per file.
   */
  async pinnedVersions(q: Queryable, projectId: string, mainBranch: string, fileIds: readonly string[]): Promise<{ fileId: string; version: number }[]> {
    const { rows } = await q.query<{ fileId: string; version: number }>(
      `SELECT t.file_id AS "fileId", t.version
       FROM (SELECT name FROM branches WHERE project_id = $1 UNION SELECT $3) b
       CROSS JOIN unnest($2::uuid[]) AS r(file_id)
       JOIN tree t ON t.project_id = $1 AND t.branch = b.name AND t.file_id = r.file_id
       UNION
       SELECT e.file_id, e.version FROM drafts d JOIN draft_entries e ON e.draft_id = d.id AND e.file_id = ANY($2::uuid[])
       WHERE d.project_id = $1 AND e.version IS NOT NULL`,
      [projectId, fileIds, mainBranch],
    );
    return rows;
  }

  /**
   * Inserts the commit and its entries, moves the tree and the branch head, and writes its
   * commit.created event into the outbox, in one statement. Files the tree lacks are inserted and the
   * others updated, as `tree` (read in this transaction, under the project's sequence lock) says: no
   * other writer can change the branch's tree meanwhile. A file new to the tree also gets its path key
   * (file_paths: batch download URLs find files by path), unless another branch gave it one already.
   * The event's parts are built here from the entries, in the request's order, so no entry's JSON is
   * made by the service or sent to the database: a part is `event.header` (the event without its
   * createdAt, which the commit's row gives) with createdAt, part, parts and its entries; a new part
   * begins wherever the running size of the entries' JSON crosses a multiple of `event.partBytes`, as
   * a draft's do (StagedCommitsRepository). Outbox ids follow the parts' order, as writeOutbox's do.
   */
  async record(tx: Queryable, c: NewCommit, entries: readonly PlannedEntry[], tree: ReadonlyMap<string, TreeState>, event: CommitEvent): Promise<void> {
    const list = (pick: (e: PlannedEntry) => string | number | boolean | null, separator?: string) => textList(entries.map(pick), separator);
    // A commit's versions come from one or a few uploaders: each distinct (id, name) is sent once.
    const uploaders = new Map<string, { id: string; name: string; index: number }>();
    const uploaderIndex = (e: PlannedEntry) => {
      const { uploaderId: id, uploaderName: name } = e;
      if (id === null || name === null) return null;
      const key = id + name; // an id is always 36 characters, so this names one (id, name) pair
      let found = uploaders.get(key);
      if (!found) uploaders.set(key, (found = { id, name, index: uploaders.size + 1 }));
      return found.index;
    };
    // The header's JSON without its closing brace; the SQL below closes it after the part's fields.
    const opening = JSON.stringify(event.header).slice(0, -1);
    await tx.query(sizedFor(RECORD_COMMIT, entries.length), [
      c.id,
      c.projectId,
      c.sequenceNum,
      c.branch,
      c.message,
      c.authorId,
      c.authorName,
      c.fileCount,
      list((e) => e.fileId),
      list((e) => e.path, UNIT_SEPARATOR),
      list((e) => e.action),
      list((e) => e.version),
      list((e) => e.versionId),
      list((e) => e.sha256),
      list((e) => e.size),
      list((e) => e.storageKey, UNIT_SEPARATOR),
      list(uploaderIndex),
      list((e) => e.versionCreatedAt),
      list((e) => e.treeVersion),
      list((e) => e.treeSha256),
      list((e) => e.treeSize),
      list((e) => tree.has(e.fileId)),
      [...uploaders.values()].map((u) => u.id),
      [...uploaders.values()].map((u) => u.name),
      list((e) => pathKey(e.path), UNIT_SEPARATOR),
      c.kind,
      event.subject,
      opening,
      event.partBytes,
      event.traceContext,
    ]);
  }
}
