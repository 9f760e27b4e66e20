import { mkdtemp, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lock, type Actor } from '@lode/contracts';
import { LocalBus, LocalEvents } from '@lode/bus';
import { Database } from '@lode/db';
import { LocalBlobStorage } from '@lode/storage';
import { startUploadService, UPLOAD_SCHEMA } from '@lode/upload';
import { createTestDatabase, type TestDatabase } from '@lode/testkit/database';
import { testLogger } from '@lode/testkit/test-logs';
import { seedConfirmedVersions } from '@lode/system/testing';
import { LOCK_SCHEMA, startLockService, type RunningLockService } from '../src/index.ts';
import { publishCommit, until } from './helpers.ts';

const logger = testLogger('test');
/** Longer than any restart under load: a fence's lapse is tested by ending its lifetime in the table, not by waiting. */
const TTL_MS = 60_000;

/**
 * The lock service at the RPC level, as the commit service sees it, with the real upload service on
 * one database. Each start is a new process as far as the lock service can tell: a new bus and pool.
 */
class LockHarness {
  readonly database: TestDatabase;
  readonly events = new LocalEvents(logger, { retryBackoff: { initialMs: 50, maxMs: 200 } });
  readonly #dataDir: string;
  readonly #filesDb: Database;
  bus!: LocalBus;
  lock!: RunningLockService;
  #upload!: Awaited<ReturnType<typeof startUploadService>>;
  #locksDb!: Database;

  constructor(database: TestDatabase, dataDir: string) {
    this.database = database;
    this.#dataDir = dataDir;
    this.#filesDb = new Database({ connectionString: database.url, schema: UPLOAD_SCHEMA, max: 2 });
  }

  async start(): Promise<void> {
    this.bus = new LocalBus(logger);
    const storage = new LocalBlobStorage({ dir: this.#dataDir, secret: 'x'.repeat(40), publicUrl: 'http://127.0.0.1:1' });
    this.#upload = await startUploadService({ db: this.#filesDb, bus: this.bus, events: this.events, storage, logger, cursorSecret: 'c'.repeat(40) });
    this.#locksDb = new Database({ connectionString: this.database.url, schema: LOCK_SCHEMA, max: 4 });
    this.lock = await startLockService({ db: this.#locksDb, bus: this.bus, events: this.events, logger, cursorSecret: 'c'.repeat(40) });
  }

  /** Moves a fence's expiry to now, as if its ttl had passed. */
  async endLifetime(fenceId: string): Promise<void> {
    await this.#locksDb.query('UPDATE fences SET expires_at = now() WHERE fence_id = $1', [fenceId]);
  }

  /** What a crash and a restart leave: the database, and nothing held in memory. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.lock.stop(), this.#upload.stop()]);
    await this.bus.close();
    await this.#locksDb.close();
  }

  async close(): Promise<void> {
    await this.stop();
    await this.events.close();
    await this.#filesDb.close();
  }
}

describe('the commit fence at the RPC level', () => {
  let h: LockHarness;
  let dataDir: string;
  const projectId = randomUUID();
  const actor = (name: string): Actor => ({
    projectId,
    orgId: randomUUID(),
    userId: randomUUID(),
    userName: name,
    userAvatarUrl: null,
    keyId: randomUUID(),
    role: 'member',
  });
  const alice = actor('Alice');
  const bob = actor('Bob');
  let files: string[];
  const acquire = (who: Actor, fileIds: string[]) => h.bus.call(lock.acquire, { actor: who, fileIds });
  const fence = (who: Actor, fileIds: string[], fenceId = randomUUID()) =>
    h.bus.call(lock.fence, { projectId, userId: who.userId, userName: who.userName, fenceId, fileIds, ttlMs: TTL_MS }).then(() => fenceId);
  const settle = (fenceId: string, committed: boolean) => h.bus.call(lock.settleFence, { projectId, fenceId, committed });
  const heldBy = async () => {
    const { data } = await h.bus.call(lock.list, { actor: alice, limit: 200 });
    return new Map(data.map((l) => [l.fileId, l.userName]));
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lode-lock-'));
    h = new LockHarness(await createTestDatabase(), dataDir);
    await h.start();
  });
  afterAll(async () => {
    await h?.close();
    await h?.database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    files = (await seedConfirmedVersions(h.database.url, { projectId, userId: alice.userId }, 4)).map((f) => f.fileId);
  });

  it('keeps other users out while unsettled, survives a restart, and lapses after its ttl', async () => {
    const [f, own] = files;
    const crashed = await fence(alice, [f, own]);
    expect((await acquire(bob, [f])).conflicts).toEqual([
      { reason: 'committing', fileId: f, path: expect.any(String), userId: alice.userId, userName: 'Alice' },
    ]);
    expect((await acquire(alice, [own])).acquired).toHaveLength(1);

    // The lock service dies mid-commit and comes back: the fence is still there (the commit may still be running)...
    await h.restart();
    expect((await acquire(bob, [f])).conflicts).toMatchObject([{ reason: 'committing' }]);
    // ...until its lifetime is over; the commit service never commits past it.
    await h.endLifetime(crashed);
    expect((await acquire(bob, [f])).acquired).toMatchObject([{ fileId: f, userId: bob.userId }]);
    expect(await h.lock.purgeExpiredFences()).toBe(1); // one fence, whatever its number of files
    expect(await h.lock.purgeExpiredFences()).toBe(0);
    // A settle arriving after all changes nothing.
    expect(await settle(crashed, true)).toEqual({ releasedLocks: 0 });
    expect((await heldBy()).get(f)).toBe('Bob');
  });

  it('refuses with file_locked when another user holds a file, and fences none of them', async () => {
    const [locked, free] = files;
    const held = (await acquire(bob, [locked])).acquired[0];
    await expect(fence(alice, [free, locked])).rejects.toMatchObject({
      code: 'file_locked',
      details: { lockedFiles: [{ fileId: locked, path: held.path, userId: bob.userId, userName: 'Bob', lockedAt: held.lockedAt }] },
    });
    expect((await acquire(bob, [free])).acquired).toHaveLength(1);
    // The committer's own locks never stand in their way.
    await expect(fence(bob, [locked, free])).resolves.toEqual(expect.any(String));
  });

  it('after a commit releases the committer’s locks on the fenced files; after a failure keeps them', async () => {
    const [a, b, other, kept] = files;
    await acquire(alice, [a, b, other, kept]);
    expect(await settle(await fence(alice, [a, b]), true)).toEqual({ releasedLocks: 2 });
    expect([...(await heldBy()).keys()].filter((id) => files.includes(id)).sort()).toEqual([other, kept].sort());

    expect(await settle(await fence(alice, [kept]), false)).toEqual({ releasedLocks: 0 });
    expect((await heldBy()).get(kept)).toBe('Alice');
    // The fence is gone with the settle: Bob meets Alice's lock, not a commit in progress.
    expect((await acquire(bob, [kept])).conflicts).toMatchObject([{ reason: 'locked', userId: alice.userId }]);
  });

  it('releases from commit.created what a settle never released: the author’s locks taken before the commit', async () => {
    const [a, b, retaken, bobs] = files;
    await acquire(alice, [a, b, retaken]);
    await acquire(bob, [bobs]);
    await new Promise((r) => setTimeout(r, 20));
    const createdAt = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await acquire(alice, [retaken]); // taken again after the commit: survives it
    const commitId = randomUUID();
    // A two-part commit: each part releases its own entries.
    await publishCommit(h.events, { commitId, projectId, author: alice, createdAt, part: 1, parts: 2, fileIds: [a, bobs] });
    await publishCommit(h.events, { commitId, projectId, author: alice, createdAt, part: 2, parts: 2, fileIds: [b, retaken] });
    await until(async () => !(await heldBy()).has(b));
    const after = await heldBy();
    expect([after.has(a), after.get(retaken), after.get(bobs)]).toEqual([false, 'Alice', 'Bob']);

    // Delivered again (as after a consumer restart): nothing changes; a later commit still releases.
    await publishCommit(h.events, { commitId, projectId, author: alice, createdAt, part: 1, parts: 2, fileIds: [a, bobs], id: `${commitId}.1.again` });
    await publishCommit(h.events, {
      commitId: randomUUID(),
      projectId,
      author: alice,
      createdAt: new Date().toISOString(),
      part: 1,
      parts: 1,
      fileIds: [retaken],
    });
    await until(async () => !(await heldBy()).has(retaken));
    expect((await heldBy()).get(bobs)).toBe('Bob');
  });
});
