import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lock } from '@lode/contracts';
import type { ApiResponse, BulkVersion, PushedFile, SeededProject } from '@lode/testkit';
import { seedConfirmedVersions, startTestStack, type TestStack } from '@lode/system/testing';
import { projectApi } from './branch-helpers.ts';

const DAY_MS = 86_400_000;

/** A project's draft calls through the gateway, by its own key. */
function draftApi(p: SeededProject, projectId = p.projectId) {
  const base = `/api/v1/projects/${projectId}/drafts`;
  const entries = (files: readonly PushedFile[]) => files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'modify' }));
  return {
    create: (body: object = { message: 'import' }) => p.api.post(base, body),
    get: (id: string) => p.api.get(`${base}/${id}`),
    stage: (id: string, fileVersions: readonly object[]) => p.api.post(`${base}/${id}/files`, { fileVersions }),
    stageFiles: (id: string, files: readonly PushedFile[]) => p.api.post(`${base}/${id}/files`, { fileVersions: entries(files) }),
    commit: (id: string, idempotencyKey?: string) => p.api.post(`${base}/${id}/commit`, {}, idempotencyKey ? { 'x-idempotency-key': idempotencyKey } : {}),
    remove: (id: string) => p.api.delete(`${base}/${id}`),
  };
}

function created(res: ApiResponse): string {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** More files than an error names (100), seeded in bulk with a confirmed version 1 each. */
const MANY = 150;
const adds = (files: readonly BulkVersion[]) => files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' }));
/** The first 100 file ids in the order an error names them: the ids' own. */
const first100 = (files: readonly { fileId: string }[]) =>
  files
    .map((f) => f.fileId)
    .sort()
    .slice(0, 100);

describe.each(['local', 'nats'] as const)('draft commits through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  let p: SeededProject;
  let teammate: SeededProject;
  let files: ReturnType<typeof projectApi>;
  let drafts: ReturnType<typeof draftApi>;

  beforeAll(async () => {
    stack = await startTestStack({ bus });
    p = await stack.seed.project();
    teammate = await stack.seed.member(p.orgId, p.projectId, 'member');
    files = projectApi(p);
    drafts = draftApi(p);
  });
  afterAll(async () => stack?.stop());

  it('creates a draft that is empty, on main by default, and lives for a day', async () => {
    const res = await drafts.create({ message: '  first import  ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      message: 'first import',
      branch: 'main',
      fileCount: 0,
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(DAY_MS);
    expect((await drafts.get(res.body.id)).body).toEqual(res.body);
  });

  it.each([
    ['no message', {}],
    ['an empty message', { message: ' ' }],
    ['a bad branch name', { message: 'm', branch: 'a..b' }],
  ])('answers 400 to a draft with %s', async (_name, body) => {
    const res = await drafts.create(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });

  it('counts distinct files staged: a retried call or a file staged again changes nothing', async () => {
    const [a, b, c] = await Promise.all(['retry/a.bin', 'retry/b.bin', 'retry/c.bin'].map((path) => files.push(path)));
    const id = created(await drafts.create());
    expect((await drafts.stageFiles(id, [a, b])).body).toEqual({ id, fileCount: 2 });
    expect((await drafts.stageFiles(id, [a, b])).body).toEqual({ id, fileCount: 2 });
    expect((await drafts.stageFiles(id, [b, c])).body).toEqual({ id, fileCount: 3 });
    expect((await drafts.get(id)).body.fileCount).toBe(3);
  });

  it('stages nothing from a call with a bad entry, and names the entries', async () => {
    const good = await files.push('bad-entries/good.bin');
    const id = created(await drafts.create());
    const unknown = randomUUID();
    const missing = await drafts.stage(id, [
      { fileId: good.fileId, version: 1, action: 'add' },
      { fileId: unknown, version: 1, action: 'add' },
    ]);
    expect(missing.status).toBe(404);
    expect(missing.body.fileIds).toEqual([unknown]);
    const unconfirmed = await drafts.stage(id, [{ fileId: good.fileId, version: 2, action: 'add' }]);
    expect(unconfirmed.status).toBe(409);
    expect(unconfirmed.body).toMatchObject({ code: 'version_not_confirmed', entries: [{ fileId: good.fileId, version: 2 }] });
    const invalid = await drafts.stage(id, [{ fileId: good.fileId, version: 0, action: 'add' }]);
    expect(invalid.status).toBe(400);
    expect(invalid.body.issues[0].path).toBe('fileVersions.0.version');
    const twice = await drafts.stage(id, [
      { fileId: good.fileId, version: 1, action: 'add' },
      { fileId: good.fileId, version: 1, action: 'add' },
    ]);
    expect(twice.status).toBe(400);
    expect(twice.body.duplicateFileIds).toEqual([good.fileId]);
    const tooMany = await drafts.stage(
      id,
      Array.from({ length: 25_001 }, () => ({ fileId: good.fileId, version: 1, action: 'add' })),
    );
    expect(tooMany.status).toBe(413);
    expect((await drafts.get(id)).body.fileCount).toBe(0);
  });

  it('commits everything staged as one commit of kind draft, then the draft is gone; a retry with its key replays', async () => {
    const pushed = await Promise.all(['one/a.bin', 'one/b.bin', 'one/c.bin'].map((path) => files.push(path)));
    const id = created(await drafts.create({ message: 'three files' }));
    await drafts.stageFiles(id, pushed.slice(0, 2));
    await drafts.stageFiles(id, pushed.slice(2));
    const key = randomUUID();
    const res = await drafts.commit(id, key);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), sequenceNum: expect.any(Number), message: 'three files', fileCount: 3, branch: 'main' });
    expect((await drafts.get(id)).status).toBe(404);
    const replay = await drafts.commit(id, key);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(res.body);
    expect((await drafts.commit(id)).status).toBe(404);

    const log = await files.log();
    expect(log.data[0]).toMatchObject({ id: res.body.id, sequenceNum: res.body.sequenceNum, kind: 'draft', fileCount: 3, authorId: p.userId });
    const tree = await files.tree('main', 'one/');
    expect(tree).toEqual(pushed.map((f) => ({ path: f.path, version: 1 })));
  });

  it('commits to the draft’s branch, and deletes as a commit does', async () => {
    const [kept, gone] = await Promise.all(['branch/kept.bin', 'branch/gone.bin'].map((path) => files.push(path)));
    await files.commit([kept, gone]);
    const id = created(await drafts.create({ message: 'on a branch', branch: 'feature/import' }));
    const staged = await drafts.stage(id, [{ fileId: gone.fileId, action: 'delete' }]);
    expect(staged.body.fileCount).toBe(1);
    const res = await drafts.commit(id);
    expect(res.status).toBe(201);
    expect(res.body.branch).toBe('feature/import');
    expect(await files.tree('feature/import', 'branch/')).toEqual([{ path: kept.path, version: 1 }]);
    expect(await files.tree('main', 'branch/')).toEqual([kept, gone].map((f) => ({ path: f.path, version: 1 })).sort((x, y) => (x.path < y.path ? -1 : 1)));
  });

  it('answers 422 empty_draft for a draft with nothing staged, and keeps it', async () => {
    const id = created(await drafts.create());
    const res = await drafts.commit(id);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('empty_draft');
    expect((await drafts.get(id)).status).toBe(200);
  });

  it('refuses a commit of a file another user locked (draft kept), and commits once it is unlocked', async () => {
    const [locked, free] = await Promise.all(['locks/locked.bin', 'locks/free.bin'].map((path) => files.push(path)));
    const lockedRes = await teammate.api.post(`/api/v1/projects/${p.projectId}/locks`, { fileIds: [locked.fileId] });
    expect(lockedRes.body.acquired).toHaveLength(1);
    const id = created(await drafts.create());
    await drafts.stageFiles(id, [locked, free]);
    const refused = await drafts.commit(id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('file_locked');
    expect(refused.body.lockedFiles).toEqual([expect.objectContaining({ fileId: locked.fileId, userId: teammate.userId })]);
    expect((await drafts.get(id)).body.fileCount).toBe(2);

    expect((await teammate.api.delete(`/api/v1/projects/${p.projectId}/locks`, { fileIds: [locked.fileId] })).status).toBe(200);
    const res = await drafts.commit(id);
    expect(res.status).toBe(201);
    expect(res.body.fileCount).toBe(2);
  });

  it('refuses a draft with more locked files than it names: the first 100 (in id order) and lockedFileCount', async () => {
    const seeded = await seedConfirmedVersions(stack.databaseUrl, p, MANY, `many-locked-${bus}`);
    const locked = await teammate.api.post(`/api/v1/projects/${p.projectId}/locks`, { fileIds: seeded.map((f) => f.fileId) });
    expect(locked.body.acquired).toHaveLength(MANY);
    const id = created(await drafts.create());
    expect((await drafts.stage(id, adds(seeded))).status).toBe(200);
    const refused = await drafts.commit(id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'file_locked', lockedFileCount: MANY });
    expect(refused.body.lockedFiles.map((f: { fileId: string }) => f.fileId)).toEqual(first100(seeded));
    expect(refused.body.lockedFiles[0]).toMatchObject({ userId: teammate.userId });
  });

  it('refuses a draft with more stale versions than it names: the first 100 and count', async () => {
    const seeded = await seedConfirmedVersions(stack.databaseUrl, p, MANY, `many-stale-${bus}`);
    const id = created(await drafts.create());
    expect((await drafts.stage(id, adds(seeded))).status).toBe(200);
    // The branch takes the same versions meanwhile: each staged one is then no newer than the branch's.
    expect((await p.api.post(`${files.base}/commits`, { message: 'first', fileVersions: adds(seeded) })).status).toBe(201);
    const refused = await drafts.commit(id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'stale_version', count: MANY });
    expect(refused.body.entries.map((e: { fileId: string }) => e.fileId)).toEqual(first100(seeded));
    expect(refused.body.entries[0]).toEqual({ fileId: first100(seeded)[0], version: 1, currentVersion: 1 });
    expect((await drafts.get(id)).body.fileCount).toBe(MANY);
  });

  it('refuses a draft deleting more absent files than it names: the first 100 and count', async () => {
    const seeded = await seedConfirmedVersions(stack.databaseUrl, p, MANY, `many-absent-${bus}`);
    const id = created(await drafts.create());
    expect(
      (
        await drafts.stage(
          id,
          seeded.map((f) => ({ fileId: f.fileId, action: 'delete' })),
        )
      ).status,
    ).toBe(200);
    const refused = await drafts.commit(id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'file_not_in_branch', count: MANY });
    expect(refused.body.fileIds).toEqual(first100(seeded));
  });

  it('releases the committer’s own locks on the draft’s files once committed (lock.changed, reason committed)', async () => {
    const [mine, other] = await Promise.all(['own-locks/mine.bin', 'own-locks/other.bin'].map((path) => files.push(path)));
    expect((await p.api.post(`/api/v1/projects/${p.projectId}/locks`, { fileIds: [mine.fileId] })).body.acquired).toHaveLength(1);
    const released: lock.LocksChanged[] = [];
    const consumer = await stack.events.consume(`draft-lock-release-${bus}`, lock.locksChanged, async (event) => {
      if (event.projectId === p.projectId && event.action === 'released') released.push(event);
    });
    try {
      const id = created(await drafts.create());
      await drafts.stageFiles(id, [mine, other]);
      expect((await drafts.commit(id)).status).toBe(201);
      const locks = await p.api.get(`/api/v1/projects/${p.projectId}/locks`);
      expect(locks.body.data.map((l: { fileId: string }) => l.fileId)).not.toContain(mine.fileId);
      // Waits on the event itself, with a deadline far past any relay's poll.
      const releasedMine = () => released.find((e) => e.locks.some((l) => l.fileId === mine.fileId));
      await vi.waitFor(() => expect(releasedMine()).toBeDefined(), { timeout: 30_000, interval: 50 });
      const event = releasedMine();
      expect(event).toMatchObject({ reason: 'committed', by: { userId: p.userId }, locks: [{ fileId: mine.fileId, userId: p.userId }] });
    } finally {
      await consumer.stop();
    }
  });

  it('refuses a version no newer than the branch’s (stale_version, draft kept); staging a newer one fixes it', async () => {
    const v1 = await files.push('stale/file.bin');
    const id = created(await drafts.create());
    await drafts.stageFiles(id, [v1]);
    const v2 = await files.push('stale/file.bin');
    await files.commit([v2]);
    const refused = await drafts.commit(id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'stale_version', entries: [{ fileId: v1.fileId, version: 1, currentVersion: 2 }] });
    expect((await drafts.get(id)).status).toBe(200);

    const v3 = await files.push('stale/file.bin');
    expect((await drafts.stageFiles(id, [v3])).body.fileCount).toBe(1);
    const res = await drafts.commit(id);
    expect(res.status).toBe(201);
    expect(await files.tree('main', 'stale/')).toEqual([{ path: v3.path, version: 3 }]);
  });

  it('answers 404 for another user’s draft and for a draft id under another project, on every route', async () => {
    const file = await files.push('owned/file.bin');
    const id = created(await drafts.create());
    const other = await stack.seed.project();
    for (const [stranger, api] of [
      ['teammate', draftApi(teammate)],
      ['other project', draftApi(other)],
    ] as const) {
      const calls = [api.get(id), api.stageFiles(id, [file]), api.commit(id), api.remove(id)];
      for (const res of await Promise.all(calls)) expect([stranger, res.status, res.body.code]).toEqual([stranger, 404, 'not_found']);
    }
    expect((await drafts.get(id)).body.fileCount).toBe(0);
  });

  it('deletes a draft: 200, then it is gone', async () => {
    const id = created(await drafts.create());
    expect((await drafts.remove(id)).body).toEqual({ id, deleted: true });
    expect((await drafts.get(id)).status).toBe(404);
    expect((await drafts.remove(id)).status).toBe(404);
  });

  it('counts every draft call, reads included, against the write rate limit', async () => {
    const limited = await stack.seed.project({ writeRateLimit: { perSecond: 0.001, burst: 3 } });
    const api = draftApi(limited);
    const id = created(await api.create());
    expect((await api.get(id)).status).toBe(200);
    expect((await api.remove(id)).status).toBe(200);
    const res = await api.get(id);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('rate_limited');
  });
});

describe.each(['local', 'nats'] as const)('draft expiry (%s bus)', (bus) => {
  const TTL_MS = 1500;
  let stack: TestStack;
  let p: SeededProject;

  beforeAll(async () => {
    stack = await startTestStack({ bus, draftTtlMs: TTL_MS });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());

  it('answers 404 for an expired draft on every route, and the sweep removes it', async () => {
    const file = await projectApi(p).push('expiry/file.bin');
    const drafts = draftApi(p);
    const res = await drafts.create();
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(TTL_MS);
    const id = created(res);
    expect((await drafts.stageFiles(id, [file])).status).toBe(200);
    // Waits on the condition itself, with a deadline far past the lifetime.
    const deadline = Date.now() + 60_000;
    while ((await drafts.get(id)).status === 200 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    for (const call of [drafts.get(id), drafts.stageFiles(id, [file]), drafts.commit(id), drafts.remove(id)]) expect((await call).status).toBe(404);
    // The periodic sweep may have run already; either way the draft and its entries are gone after this.
    await stack.commit.sweepExpiredDrafts();
    const db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ drafts: number; entries: number }>(
        'SELECT (SELECT count(*) FROM commits.drafts WHERE id = $1)::int AS drafts, (SELECT count(*) FROM commits.draft_entries WHERE draft_id = $1)::int AS entries',
        [id],
      );
      expect(rows[0]).toEqual({ drafts: 0, entries: 0 });
    } finally {
      await db.end();
    }
  });
});
