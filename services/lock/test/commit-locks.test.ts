import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lock } from '@lode/contracts';
import { Database } from '@lode/db';
import { pushFile, type PushedFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { LOCK_SCHEMA } from '../src/index.ts';
import { publishCommit, until } from './helpers.ts';

describe.each(['local', 'nats'] as const)('locks enforced at commit (%s bus)', (bus) => {
  let stack: TestStack;
  let alice: SeededProject;
  let bob: SeededProject;
  /** The lock service's own schema, where its outbox is. */
  let lockDb: Database;
  const locks = () => `/api/v1/projects/${alice.projectId}/locks`;
  const commits = () => `/api/v1/projects/${alice.projectId}/commits`;
  const push = (path: string) => pushFile(alice.api, alice.projectId, path, randomBytes(16));
  const lockAs = (who: SeededProject, files: PushedFile[], note?: string) => who.api.post(locks(), { fileIds: files.map((f) => f.fileId), note });
  const commitAs = (who: SeededProject, files: PushedFile[]) =>
    who.api.post(commits(), { message: 'work', fileVersions: files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' })) });
  const lockedIds = async () => new Set(((await alice.api.get(`${locks()}?limit=200`)).body.data as { fileId: string }[]).map((l) => l.fileId));

  /**
   * The outbox position of the lock.changed event in which `action` happened to the file. The outbox
   * numbers the lock service's changes in the order they were written, whatever the clocks say.
   */
  const changeOrder = async (fileId: string, action: 'acquired' | 'released'): Promise<bigint> => {
    const { rows } = await lockDb.query<{ id: string }>(
      `SELECT id FROM outbox
       WHERE subject = $1 AND payload::jsonb @> jsonb_build_object('action', $2::text, 'locks', jsonb_build_array(jsonb_build_object('fileId', $3::text)))`,
      [lock.locksChanged.subject, action, fileId],
    );
    expect(rows, `one lock.changed ${action} event of ${fileId}`).toHaveLength(1);
    return BigInt(rows[0].id);
  };

  beforeAll(async () => {
    stack = await startTestStack({ bus });
    alice = await stack.seed.project();
    bob = await stack.seed.member(alice.orgId, alice.projectId, 'member', 'Bob Builder');
    lockDb = new Database({ connectionString: stack.databaseUrl, schema: LOCK_SCHEMA, max: 1 });
  });
  afterAll(async () => {
    await lockDb?.close();
    await stack?.stop();
  });

  it('rejects a commit touching a file another user locked: 409 file_locked naming each locked file, its holder and their note', async () => {
    const [locked, free] = [await push('Levels/castle.umap'), await push('Levels/moat.umap')];
    const lock = (await lockAs(bob, [locked], 'lighting pass')).body.acquired[0];
    const res = await commitAs(alice, [locked, free]);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      code: 'file_locked',
      message: expect.any(String),
      lockedFiles: [
        { fileId: locked.fileId, path: 'Levels/castle.umap', userId: bob.userId, userName: 'Bob Builder', note: 'lighting pass', lockedAt: lock.lockedAt },
      ],
    });
    expect(await lockedIds()).toContain(locked.fileId);
    // Nothing was committed: the file has no history yet.
    expect((await alice.api.get(`/api/v1/projects/${alice.projectId}/files/${free.fileId}/versions`)).body.data).toEqual([]);
  });

  it('releases the committer’s own locks on the committed files, visible to the very next GET', async () => {
    const [committed, untouched] = [await push('Art/hero.png'), await push('Art/villain.png')];
    await lockAs(alice, [committed, untouched]);
    expect((await commitAs(alice, [committed])).status).toBe(201);
    const after = await lockedIds();
    expect(after.has(committed.fileId)).toBe(false);
    expect(after.has(untouched.fileId)).toBe(true);
    // Bob can lock the committed file at once.
    expect((await lockAs(bob, [committed])).body.acquired).toHaveLength(1);
  });

  it('keeps every lock when the commit fails (stale version, or another user’s lock)', async () => {
    const v1 = await push('Audio/theme.wav');
    const v2 = await push('Audio/theme.wav');
    expect((await commitAs(alice, [v2])).status).toBe(201);
    await lockAs(alice, [v1]);
    const stale = await alice.api.post(commits(), { message: 'older', fileVersions: [{ fileId: v1.fileId, version: 1, action: 'modify' }] });
    expect(stale.body.code).toBe('stale_version');
    expect(await lockedIds()).toContain(v1.fileId);

    const [mine, bobs] = [await push('Audio/mine.wav'), await push('Audio/bobs.wav')];
    await lockAs(alice, [mine]);
    await lockAs(bob, [bobs]);
    expect((await commitAs(alice, [mine, bobs])).body.code).toBe('file_locked');
    const after = await lockedIds();
    expect(after.has(mine.fileId) && after.has(bobs.fileId)).toBe(true);
  });

  it('lets a commit through files the committer locked and files nobody locked', async () => {
    const [mine, nobodys] = [await push('Mixed/mine.bin'), await push('Mixed/free.bin')];
    await lockAs(alice, [mine]);
    expect((await commitAs(alice, [mine, nobodys])).status).toBe(201);
  });

  it('releases the author’s locks from commit.created when the commit’s settle never happened', async () => {
    const [a, b] = [await push('Fallback/a.bin'), await push('Fallback/b.bin')];
    await lockAs(alice, [a, b]);
    await lockAs(bob, [await push('Fallback/bobs.bin')]);
    const author = { userId: alice.userId, userName: 'Alice' };
    await publishCommit(stack.events, {
      commitId: randomUUID(),
      projectId: alice.projectId,
      author,
      createdAt: new Date().toISOString(),
      part: 1,
      parts: 1,
      fileIds: [a.fileId],
    });
    await until(async () => !(await lockedIds()).has(a.fileId));
    expect((await lockedIds()).has(b.fileId)).toBe(true);
  });

  it('keeps a lock taken after the commit even when the request began before it (commit.created fallback)', async () => {
    const [waited, before] = [await push('Fallback/waited.bin'), await push('Fallback/before.bin')];
    await lockAs(alice, [before]);
    // Another holder of the project's mutex makes the lock request wait its turn; the commit is
    // stamped while it waits, so the lock is taken after the commit and must outlive its release.
    const holder = new Database({ connectionString: stack.databaseUrl, schema: LOCK_SCHEMA, max: 1 });
    try {
      const createdAt = await holder.transaction(async (tx) => {
        await tx.query('SELECT project_mutex($1)', [alice.projectId]);
        const request = lockAs(alice, [waited]);
        await until(async () => {
          const { rows } = await lockDb.query(
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE '%acquire_locks%'`,
          );
          return rows.length > 0;
        });
        const { rows } = await tx.query<{ now: Date }>('SELECT clock_timestamp() AS now');
        return { at: rows[0].now, request };
      });
      expect((await createdAt.request).body.acquired).toHaveLength(1);
      const author = { userId: alice.userId, userName: 'Alice' };
      await publishCommit(stack.events, {
        commitId: randomUUID(),
        projectId: alice.projectId,
        author,
        createdAt: createdAt.at.toISOString(),
        part: 1,
        parts: 1,
        fileIds: [waited.fileId, before.fileId],
      });
      await until(async () => !(await lockedIds()).has(before.fileId));
      expect((await lockedIds()).has(waited.fileId)).toBe(true);
    } finally {
      await holder.close();
    }
  });

  // Thirty rounds of a dozen requests each: a loaded host needs more than one test's usual minute.
  it('never lets a commit and another user’s lock on the same file both win (30 races)', { timeout: 300_000 }, async () => {
    const outcomes = { commitWon: 0, lockWon: 0, lockAfterCommit: 0 };
    for (let round = 0; round < 30; round++) {
      // The committer's own lock on a second file of the commit: the commit's settle releases it, so
      // the lock service's outbox records the moment the commit's fence went.
      const [f, own] = [await push(`race/${round}.umap`), await push(`race/${round}-own.umap`)];
      await lockAs(alice, [own]);
      const [committed, locked] = await Promise.all([commitAs(alice, [f, own]), lockAs(bob, [f])]);
      const lockTaken = locked.body.acquired.length === 1;
      const stillLocked = (await lockedIds()).has(f.fileId);
      if (committed.status === 409) {
        // The lock came first and stands; the commit changed nothing.
        expect(committed.body.code).toBe('file_locked');
        expect(lockTaken && stillLocked).toBe(true);
        outcomes.lockWon += 1;
      } else if (!lockTaken) {
        expect(committed.status).toBe(201);
        expect(locked.body.conflicts).toMatchObject([{ fileId: f.fileId }]);
        expect(stillLocked).toBe(false);
        outcomes.commitWon += 1;
      } else {
        // Both succeeded: only legitimate if the lock was taken once the commit was made and its fence
        // settled. Compared by the order the lock service wrote the two changes, not by their
        // timestamps: the commit's time is when its transaction began, before its fence.
        expect(committed.status).toBe(201);
        expect(await changeOrder(f.fileId, 'acquired')).toBeGreaterThan(await changeOrder(own.fileId, 'released'));
        expect(stillLocked).toBe(true);
        outcomes.lockAfterCommit += 1;
      }
    }
    expect(outcomes.commitWon + outcomes.lockWon + outcomes.lockAfterCommit).toBe(30);
  });
});
