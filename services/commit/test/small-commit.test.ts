import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '@lode/errors';
import type { Actor, commit } from '@lode/contracts';
import { tryClaimIdempotencyKey, type Database, type Queryable } from '@lode/db';
import { schemaDatabase, type SchemaDatabase } from '@lode/testkit/database';
import type { Bus } from '@lode/bus';
import type { Logger } from '@lode/telemetry';
import { COMMIT_SCHEMA, commitMigrations } from '../src/index.ts';
import { CommitRecorder } from '../src/domain/commit-recorder.ts';
import type { Resolution } from '../src/domain/commit-plan.ts';
import { BranchesRepository } from '../src/repo/branches-repo.ts';
import { CommitsRepository } from '../src/repo/commits-repo.ts';
import { StagedCommitsRepository } from '../src/repo/staged-commits-repo.ts';
import { COMMIT_CLAIM_NAMESPACE } from '../src/repo/commit-rows.ts';

type Entry = { fileId: string; action: 'add' | 'modify' | 'delete'; version: number | null };

const UPLOADER = randomUUID();

/** What the upload service would answer for these entries: a path per file, each version's metadata. */
function resolutionOf(entries: readonly Entry[], paths: ReadonlyMap<string, string>): Resolution {
  const set = <T>(pick: (e: Entry) => T) => entries.map((e) => (e.version === null ? null : pick(e)));
  return {
    paths: entries.map((e) => paths.get(e.fileId) ?? null),
    versions: {
      ids: set(() => randomUUID()),
      sha256s: set((e) => `${e.fileId.slice(0, 8)}${String(e.version).padStart(56, '0')}`),
      sizes: set((e) => 1000 + (e.version ?? 0)),
      storageKeys: set((e) => `objects/${e.fileId}/${e.version}`),
      uploaderIds: set(() => UPLOADER),
      uploaderNames: set(() => 'Zoë "uploader"'),
      createdAts: set(() => '2026-11-30T01:02:03.456Z'),
    },
  };
}

const columnsOf = (entries: readonly Entry[], message: string, branch?: string): commit.CommitColumns => ({
  message,
  branch,
  fileIds: entries.map((e) => e.fileId),
  actions: entries.map((e) => e.action),
  versions: entries.map((e) => e.version),
});

/** A project's rows in every table a commit writes, with what differs between two projects taken out. */
async function rowsOf(q: Queryable, projectId: string): Promise<unknown> {
  const select = async (sql: string) => (await q.query(sql, [projectId])).rows;
  const outbox = await select(
    `SELECT o.payload FROM outbox o JOIN commits c ON o.event_id LIKE c.id::text || '.%' WHERE c.project_id = $1 ORDER BY c.sequence_num, o.id`,
  );
  return {
    commits: await select(
      `SELECT sequence_num, branch, message, author_id, author_name, file_count, kind FROM commits WHERE project_id = $1 ORDER BY sequence_num`,
    ),
    entries: await select(
      `SELECT c.sequence_num, e.branch, e.file_id, e.path, e.action, e.version, e.sha256, e.size, e.storage_key, e.uploader_id, e.uploader_name,
              e.version_created_at, e.version_id IS NULL AS no_version_id
       FROM commit_entries e JOIN commits c ON c.id = e.commit_id WHERE e.project_id = $1 ORDER BY c.sequence_num, e.file_id`,
    ),
    tree: await select(`SELECT branch, file_id, path, version, sha256, size, commit_seq, deleted FROM tree WHERE project_id = $1 ORDER BY file_id`),
    folders: await select(`SELECT branch, parent, name, file_count, total_size FROM tree_folders WHERE project_id = $1 ORDER BY parent, name`),
    paths: await select(`SELECT path_key, file_id FROM file_paths WHERE project_id = $1 ORDER BY path_key`),
    branches: await select(`SELECT name, head_seq, base_seq, created_after, forked_from, lineage, created_by_id FROM branches WHERE project_id = $1`),
    sequence: await select(`SELECT last_seq, branch_changes FROM project_sequences WHERE project_id = $1`),
    events: outbox.map((row) => {
      const { commitId, projectId: _, createdAt, ...event } = JSON.parse((row as { payload: string }).payload) as Record<string, unknown>;
      return { ...event, commitId: typeof commitId, createdAt: typeof createdAt };
    }),
  };
}

describe('a small commit in one statement (commit_small)', () => {
  let database: SchemaDatabase;
  let db: Database;
  let recorder: CommitRecorder;
  beforeAll(async () => {
    database = await schemaDatabase(COMMIT_SCHEMA, commitMigrations);
    db = database.db;
    recorder = new CommitRecorder({
      db,
      bus: {} as Bus,
      logger: {} as Logger,
      commits: new CommitsRepository(),
      branches: new BranchesRepository(),
      staged: new StagedCommitsRepository(),
      fenceTtlMs: 30_000,
      onCommitted: () => undefined,
    });
  });
  afterAll(async () => database?.drop());

  const actorOf = (projectId: string): Actor => ({
    projectId,
    orgId: randomUUID(),
    userId: '0e6b6a5e-94c4-4a5b-9d7e-2f3c6f0f6a11',
    userName: 'Ada "the committer" Lovelace ✓',
    userAvatarUrl: null,
    keyId: randomUUID(),
    role: 'owner',
  });

  /** The same commit made by the transaction (record) in one project and by recordSmall in another. */
  const both = async (
    projects: { tx: Actor; small: Actor },
    entries: readonly Entry[],
    paths: ReadonlyMap<string, string>,
    message: string,
    branch?: string,
  ) => {
    const resolved = resolutionOf(entries, paths);
    const columns = columnsOf(entries, message, branch);
    const settle = <T>(work: Promise<T>) =>
      work.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
    const byTransaction = await settle(db.transaction((tx) => recorder.record(tx, projects.tx, columns, resolved, { kind: 'commit' })));
    const inOne = await settle(
      db.onConnection((q) => recorder.recordSmall(q, projects.small, columns, resolved, { kind: 'commit', guard: undefined, msLeft: 10_000 })),
    );
    return { byTransaction, inOne };
  };

  it('writes the rows and the commit.created event the transaction writes, and refuses what it refuses', async () => {
    const projects = { tx: actorOf(randomUUID()), small: actorOf(randomUUID()) };
    const [f1, f2, f3, f4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const paths = new Map([
      [f1, 'Content/Maps/Forest "north".umap'],
      [f2, 'Content/Maps/Désert/Oasis.umap'],
      [f3, 'root.bin'],
      [f4, 'Never/committed.bin'],
    ]);
    const steps: { entries: Entry[]; message: string; refused?: string }[] = [
      { entries: [add(f1, 1), add(f2, 1)], message: 'first: "quoted", \\ backslash,\nnew line, tab\t and ✓' },
      { entries: [add(f2, 2), add(f1, 2)], message: 'modify, in reverse id order' },
      { entries: [del(f2), add(f3, 1)], message: 'delete one, add another' },
      { entries: [add(f2, 3)], message: 'a deleted file comes back' },
      { entries: [add(f1, 2), add(f3, 1), add(f2, 4)], message: 'stale', refused: 'stale_version' },
      { entries: [del(f4), del(f3), del(f3)], message: 'absent', refused: 'file_not_in_branch' },
      { entries: [del(f1), del(f3)], message: 'delete two' },
    ];
    for (const step of steps) {
      const { byTransaction, inOne } = await both(projects, step.entries, paths, step.message);
      if (step.refused) {
        expect('error' in byTransaction && isAppError(byTransaction.error) && byTransaction.error.code).toBe(step.refused);
        expect('error' in inOne && inOne.error).toEqual('error' in byTransaction && byTransaction.error);
      } else {
        expect(byTransaction).toHaveProperty('value');
        expect(inOne).toMatchObject({ value: { outcome: 'committed', reply: { ...(byTransaction as { value: object }).value, id: expect.any(String) } } });
      }
    }
    expect(await rowsOf(db, projects.small.projectId)).toEqual(await rowsOf(db, projects.tx.projectId));
    // Written as JSON.stringify writes it: the same text a consumer would get from the service.
    const { rows } = await db.query<{ payload: string }>(`SELECT payload FROM outbox WHERE payload LIKE $1`, [`%"projectId":"${projects.small.projectId}"%`]);
    expect(rows).toHaveLength(5);
    for (const { payload } of rows) expect(JSON.stringify(JSON.parse(payload))).toBe(payload);
  });

  it('commits to another branch that exists as the transaction does, and leaves a missing one to it', async () => {
    const projects = { tx: actorOf(randomUUID()), small: actorOf(randomUUID()) };
    const [f1, f2, f3] = [randomUUID(), randomUUID(), randomUUID()];
    const paths = new Map([
      [f1, 'a/one.bin'],
      [f2, 'a/b/two.bin'],
      [f3, 'three.bin'],
    ]);
    await both(projects, [add(f1, 1), add(f2, 1)], paths, 'on main');
    // Its first commit creates the branch from main's tree: the transaction's, in both projects.
    for (const actor of [projects.tx, projects.small]) {
      const entries = [add(f3, 1)];
      await db.transaction((tx) => recorder.record(tx, actor, columnsOf(entries, 'fork', 'feature'), resolutionOf(entries, paths), { kind: 'commit' }));
    }
    const steps: { entries: Entry[]; refused?: string }[] = [
      { entries: [add(f1, 2), del(f2)] },
      { entries: [add(f1, 2)], refused: 'stale_version' },
      { entries: [del(f2)], refused: 'file_not_in_branch' },
      { entries: [add(f2, 2), add(f3, 2)] },
    ];
    for (const step of steps) {
      const { byTransaction, inOne } = await both(projects, step.entries, paths, 'on feature', 'feature');
      if (step.refused) expect('error' in inOne && inOne.error).toEqual('error' in byTransaction && byTransaction.error);
      else expect(inOne).toMatchObject({ value: { outcome: 'committed', reply: { ...(byTransaction as { value: object }).value, id: expect.any(String) } } });
    }
    expect(await rowsOf(db, projects.small.projectId)).toEqual(await rowsOf(db, projects.tx.projectId));

    const entries = [add(f1, 3)];
    const missing = await db.onConnection((q) =>
      recorder.recordSmall(q, projects.small, columnsOf(entries, 'm', 'nowhere'), resolutionOf(entries, paths), {
        kind: 'commit',
        guard: undefined,
        msLeft: 10_000,
      }),
    );
    expect(missing).toEqual({ outcome: 'branch_missing' });
    const { rows } = await db.query<{ n: number }>('SELECT last_seq AS n FROM project_sequences WHERE project_id = $1', [projects.small.projectId]);
    expect(rows).toEqual([{ n: 4 }]);
  });

  it('checks the tree as it is once the sequence lock is held, not as it was when the statement began', async () => {
    const actor = actorOf(randomUUID());
    const f = randomUUID();
    const entries = [add(f, 1)];
    const paths = new Map([[f, 'raced.bin']]);
    const args = [columnsOf(entries, 'm'), resolutionOf(entries, paths)] as const;
    const { client, release } = await db.checkout();
    let racing: Promise<unknown> | undefined;
    try {
      await client.query('BEGIN');
      await recorder.record(client, actor, ...args, { kind: 'commit' });
      // Begins while the first commit holds the project's sequence row, and waits for it (the pool's other connection).
      racing = db
        .onConnection((q) => recorder.recordSmall(q, actor, ...args, { kind: 'commit', guard: undefined, msLeft: 10_000 }))
        .catch((error: unknown) => error);
      await expect
        .poll(async () => (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted')).rows[0].n)
        .toBeGreaterThan(0);
      await client.query('COMMIT');
    } finally {
      release();
    }
    expect(await racing).toMatchObject({ code: 'stale_version', details: { entries: [{ fileId: f, version: 1, currentVersion: 1 }] } });
  });

  it('answers an outcome recorded under the key, a key claimed meanwhile, and commits nothing past its time', async () => {
    const actor = actorOf(randomUUID());
    const [f, late] = [randomUUID(), randomUUID()];
    const paths = new Map([
      [f, 'a.bin'],
      [late, 'late.bin'],
    ]);
    const record = (guard: { scope: { projectId: string; keyId: string; key: string }; requestHash: string } | undefined, msLeft = 10_000, fileId = f) => {
      const entries = [add(fileId, 1)];
      return db.onConnection((q) => recorder.recordSmall(q, actor, columnsOf(entries, 'm'), resolutionOf(entries, paths), { kind: 'commit', guard, msLeft }));
    };
    const scope = { projectId: actor.projectId, keyId: actor.keyId, key: 'retry-me' };

    const first = await record({ scope, requestHash: 'h1' });
    expect(first).toMatchObject({ outcome: 'committed', reply: { sequenceNum: 1, branch: 'main', message: 'm', fileCount: 1 } });
    const reply = (first as { reply: commit.Commit }).reply;
    expect(await record({ scope, requestHash: 'h1' })).toEqual({ outcome: 'replayed', stored: { requestHash: 'h1', response: reply } });

    // The claim is the one libs/db takes for the same key: a transaction holding it makes this one wait its turn.
    const other = { ...scope, key: 'held' };
    const { client, release } = await db.checkout();
    try {
      await client.query('BEGIN');
      expect(await tryClaimIdempotencyKey(client, COMMIT_CLAIM_NAMESPACE, other)).toBe(true);
      expect(await record({ scope: other, requestHash: 'h2' })).toEqual({ outcome: 'in_progress' });
    } finally {
      await client.query('ROLLBACK');
      release();
    }

    await expect(record(undefined, 1e-6, late)).rejects.toMatchObject({ code: 'timeout' });
    await expect(record(undefined, 0, late)).rejects.toMatchObject({ code: 'timeout' });
    const { rows } = await db.query<{ last_seq: number }>('SELECT last_seq FROM project_sequences WHERE project_id = $1', [actor.projectId]);
    expect(rows).toEqual([{ last_seq: 1 }]);
  });
});

function add(fileId: string, version: number): Entry {
  return { fileId, action: 'add', version };
}

function del(fileId: string): Entry {
  return { fileId, action: 'delete', version: null };
}
