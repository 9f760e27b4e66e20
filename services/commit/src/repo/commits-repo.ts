import { errors } from '@lode/errors';
import { pathKey } from '@lode/contracts';
import { isoTime, PREPARED_MAX_LIST, preparedForList, textList, UNIT_SEPARATOR, type IdempotencyScope, type NamedStatement, type Queryable } from '@lode/db';
import type { Entries, PlannedEntry, Resolution, TreeState } from '../domain/commit-plan.ts';
import type { Lineage } from '../domain/lineage.ts';
import { COMMIT_CLAIM_NAMESPACE, type NewCommit, type StoredOutcome } from './commit-rows.ts';
import { commitWritesSql, MOVE_BRANCH_HEAD_SQL } from './commit-writes-sql.ts';
import { entryJson } from './event-entry-sql.ts';

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
 * Whether a commit of this many entries may be made by recordSmall: its function's statements are
 * planned once per connection, as a prepared statement is, so only for a few entries.
 */
export const recordableSmall = (entries: number): boolean => entries <= PREPARED_MAX_LIST;

/** A small commit as recordSmall makes it: its number and count come from the database. */
export interface SmallCommit {
  commit: Omit<NewCommit, 'sequenceNum' | 'fileCount'>;
  /** For main: how it is created unless it exists. Another branch must exist (a branch_missing outcome). */
  root: RootBranch | null;
  entries: Entries;
  resolved: Resolution;
  event: Omit<CommitEvent, 'header'>;
  /** Under an idempotency key: its scope and the request's fingerprint. */
  guard: { scope: IdempotencyScope; requestHash: string } | undefined;
  /** How long the statement may take before it must not commit. */
  msLeft: number;
}

/**
 * What recordSmall did: committed, found an outcome recorded under the key, found the key claimed,
 * or found no such branch (another than main), writing nothing.
 */
export type SmallCommitOutcome =
  { outcome: 'committed'; sequenceNum: number } | { outcome: 'replayed'; stored: StoredOutcome } | { outcome: 'in_progress' } | { outcome: 'branch_missing' };

// One function (migration 0016) of one fixed text: prepared once per connection.
const RECORD_SMALL: NamedStatement = {
  name: 'commit.record_small',
  text: `SELECT o_outcome AS outcome, o_sequence_num AS "sequenceNum", o_request_hash AS "requestHash", o_response AS response
         FROM commit_small($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
                           $23, $24, $25, $26, $27, $28, $29, $30)`,
};

/** commit_small's refusals (SQLSTATE LC001): the rule broken, the offending entries in the detail. */
const SMALL_REFUSED = 'LC001';

const refusedFor = (error: unknown, rule: string) => (error as { code?: string }).code === SMALL_REFUSED && (error as { message?: string }).message === rule;

function smallRefusal(error: unknown): unknown {
  const { code, message, detail } = error as { code?: string; message?: string; detail?: string };
  if (code !== SMALL_REFUSED) return error;
  if (message === 'stale_version') return errors.staleVersion(JSON.parse(detail ?? '[]') as { fileId: string; version: number; currentVersion: number }[]);
  if (message === 'file_not_in_branch') return errors.fileNotInBranch(JSON.parse(detail ?? '[]') as string[]);
  if (message === 'timeout') return errors.timeout('commit');
  return error;
}

/** A commit's uploaders: each distinct (id, name) once, and each entry's index among them (1-based, as SQL arrays are). */
function uploaderIndexes(): { index: (id: string | null, name: string | null) => number | null; ids: () => string[]; names: () => string[] } {
  const uploaders = new Map<string, { id: string; name: string; index: number }>();
  return {
    index: (id, name) => {
      if (id === null || name === null) return null;
      const key = id + name; // an id is always 36 characters, so this names one (id, name) pair
      let found = uploaders.get(key);
      if (!found) uploaders.set(key, (found = { id, name, index: uploaders.size + 1 }));
      return found.index;
    },
    ids: () => [...uploaders.values()].map((u) => u.id),
    names: () => [...uploaders.values()].map((u) => u.name),
  };
}

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
            $28 || ',"createdAt":"' || ${isoTime('made.created_at')} || '","part":' || part ||
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
    const { rows } = await tx.query<TreeState>(preparedForList(TREE_STATES, fileIds.length), [projectId, branch, textList(fileIds)]);
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
    const uploaders = uploaderIndexes();
    // The header's JSON without its closing brace; the SQL below closes it after the part's fields.
    const opening = JSON.stringify(event.header).slice(0, -1);
    await tx.query(preparedForList(RECORD_COMMIT, entries.length), [
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
      list((e) => uploaders.index(e.uploaderId, e.uploaderName)),
      list((e) => e.versionCreatedAt),
      list((e) => e.treeVersion),
      list((e) => e.treeSha256),
      list((e) => e.treeSize),
      list((e) => tree.has(e.fileId)),
      uploaders.ids(),
      uploaders.names(),
      list((e) => pathKey(e.path), UNIT_SEPARATOR),
      c.kind,
      event.subject,
      opening,
      event.partBytes,
      event.traceContext,
    ]);
  }

  /**
   * A commit of a few entries (recordableSmall) in one statement that commits on its own, under the
   * same rules and writing the same rows and event as the transaction of nextSequence, treeStates,
   * planEntries and record, with the idempotency key's claim, lookup and save: the function
   * commit_small (migration 0016). A refusal writes nothing and is answered as planEntries' error;
   * past `msLeft` nothing is committed and it answers a timeout, as the transaction's check does.
   * Main is created with `root` if need be; another branch that does not exist is left to the
   * transaction (branch_missing), whose first commit copies main's tree.
   */
  async recordSmall(q: Queryable, small: SmallCommit): Promise<SmallCommitOutcome> {
    const { commit: c, root, entries, resolved, event, guard } = small;
    const v = resolved.versions;
    const uploaders = uploaderIndexes();
    const uploaderList = textList(entries.fileIds.map((_, i) => uploaders.index(v.uploaderIds[i], v.uploaderNames[i])));
    const paths = resolved.paths.map((path) => path ?? '');
    const { rows } = await q
      .query<{ outcome: SmallCommitOutcome['outcome']; sequenceNum: number | null; requestHash: string | null; response: StoredOutcome['response'] | null }>(
        RECORD_SMALL,
        [
          c.id,
          c.projectId,
          c.branch,
          root?.createdAfter ?? null,
          root ? JSON.stringify(root.lineage) : null,
          c.message,
          c.authorId,
          c.authorName,
          c.kind,
          textList(entries.fileIds),
          textList(paths, UNIT_SEPARATOR),
          textList(entries.actions),
          textList(entries.versions),
          textList(v.ids),
          textList(v.sha256s),
          textList(v.sizes),
          textList(v.storageKeys, UNIT_SEPARATOR),
          uploaderList,
          textList(v.createdAts),
          textList(paths.map(pathKey), UNIT_SEPARATOR),
          uploaders.ids(),
          uploaders.names(),
          event.subject,
          event.partBytes,
          event.traceContext,
          COMMIT_CLAIM_NAMESPACE,
          guard?.scope.keyId ?? null,
          guard?.scope.key ?? null,
          guard?.requestHash ?? null,
          small.msLeft,
        ],
      )
      .catch((error: unknown) => {
        if (refusedFor(error, 'branch_missing')) return { rows: [] };
        throw smallRefusal(error);
      });
    const row = rows.at(0);
    if (!row) return { outcome: 'branch_missing' };
    if (row.outcome === 'replayed' && row.requestHash !== null && row.response !== null) {
      return { outcome: 'replayed', stored: { requestHash: row.requestHash, response: row.response } };
    }
    if (row.outcome === 'committed' && row.sequenceNum !== null) return { outcome: 'committed', sequenceNum: row.sequenceNum };
    return { outcome: 'in_progress' };
  }
}
