import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { commit } from '@lode/contracts';
import { pushFile, type PushedFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

describe.each(['local', 'nats'] as const)('restore through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  let p: SeededProject;
  let db: pg.Client;
  const restoreUrl = () => `/api/v1/projects/${p.projectId}/restore`;
  const commitsUrl = () => `/api/v1/projects/${p.projectId}/commits`;
  const versionsUrl = (fileId: string) => `/api/v1/projects/${p.projectId}/files/${fileId}/versions`;
  const push = (path: string, bytes = randomBytes(32)) => pushFile(p.api, p.projectId, path, bytes);
  const commitAll = async (files: PushedFile[], message = 'commit') => {
    const res = await p.api.post(commitsUrl(), { message, fileVersions: files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' })) });
    expect(res.status).toBe(201);
    return res.body as commit.Commit;
  };
  /** A file whose main history is v1 (returned) then v2, each with its own bytes. */
  const fileWithTwoVersions = async (path: string) => {
    const v1 = await push(path);
    await commitAll([v1]);
    await commitAll([await push(path)]);
    return v1;
  };
  /** The next sequence number the project will hand out, proven by making a commit. */
  const probeSequence = async () => (await commitAll([await push(`probe/${randomUUID()}.bin`)], 'probe')).sequenceNum;
  const versionRow = async (fileId: string, version: number) =>
    (await db.query('SELECT storage_key, origin, restore_id FROM files.versions WHERE file_id = $1 AND version = $2', [fileId, version])).rows[0];
  const mainVersions = async (fileId: string) => (await p.api.get(versionsUrl(fileId))).body.data as commit.FileVersion[];

  beforeAll(async () => {
    stack = await startTestStack({ bus });
    p = await stack.seed.project();
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('adds a new version pointing at the old content, in one restore commit, and overwrites nothing', async () => {
    const bytes = randomBytes(1000);
    const v1 = await push('Levels/forest.umap', bytes);
    await commitAll([v1]);
    await commitAll([await push('Levels/forest.umap')]);
    const res = await p.api.post(restoreUrl(), { files: [{ fileId: v1.fileId, toVersion: 1 }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ commitId: expect.any(String), sequenceNum: expect.any(Number), restored: [{ fileId: v1.fileId, newVersion: 3 }], skipped: [] });

    const history = await mainVersions(v1.fileId);
    expect(history.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(history[0]).toMatchObject({ version: 3, sha256: v1.sha256, size: 1000, commitId: res.body.commitId, uploaderId: p.userId });
    // The restored content downloads byte for byte, with the SHA-256 the API reports.
    const download = Buffer.from(await (await fetch(history[0].downloadUrl ?? '')).arrayBuffer());
    expect(download.equals(bytes)).toBe(true);
    expect(createHash('sha256').update(download).digest('hex')).toBe(history[0].sha256);
    // No bytes were copied: the new version points at the old version's object.
    const [old, restored] = [await versionRow(v1.fileId, 1), await versionRow(v1.fileId, 3)];
    expect(restored).toMatchObject({ storage_key: old.storage_key, origin: 'restore' });
    // The commit was numbered like any other.
    expect(await probeSequence()).toBe(res.body.sequenceNum + 1);
  });

  it('publishes commit.created for the restore commit: modify for a file on main, add for one deleted there', async () => {
    const kept = await fileWithTwoVersions('Art/kept.png');
    const gone = await push('Art/gone.png');
    await commitAll([gone]);
    await p.api.post(commitsUrl(), { message: 'delete', fileVersions: [{ fileId: gone.fileId, action: 'delete' }] });
    const received: commit.CommitCreated[] = [];
    const consumer = await stack.events.consume(`restore-test-${randomUUID().slice(0, 8)}`, commit.commitCreated, async (event) => {
      if (event.projectId === p.projectId) received.push(event);
    });
    try {
      const res = await p.api.post(restoreUrl(), {
        files: [
          { fileId: kept.fileId, toVersion: 1 },
          { fileId: gone.fileId, toVersion: 1 },
        ],
      });
      expect(res.body.restored).toEqual([
        { fileId: kept.fileId, newVersion: 3 },
        { fileId: gone.fileId, newVersion: 2 },
      ]);
      await until(() => received.some((e) => e.commitId === res.body.commitId));
      expect(received.find((e) => e.commitId === res.body.commitId)).toMatchObject({
        sequenceNum: res.body.sequenceNum,
        branch: 'main',
        message: 'Restore 2 files',
        author: { userId: p.userId },
        fileCount: 2,
        entries: [
          { fileId: kept.fileId, path: 'Art/kept.png', action: 'modify', version: 3, sha256: kept.sha256, size: kept.size },
          { fileId: gone.fileId, path: 'Art/gone.png', action: 'add', version: 2, sha256: gone.sha256, size: gone.size },
        ],
      });
    } finally {
      await consumer.stop();
    }
    expect((await mainVersions(gone.fileId)).map((v) => v.version)).toEqual([2, 1]);
  });

  it('commits a confirmed version of a file never committed on main as an add', async () => {
    const uploaded = await push('Drafts/sketch.psd');
    const res = await p.api.post(restoreUrl(), { files: [{ fileId: uploaded.fileId, toVersion: 1 }] });
    expect(res.body.restored).toEqual([{ fileId: uploaded.fileId, newVersion: 2 }]);
    expect((await mainVersions(uploaded.fileId)).map((v) => v.version)).toEqual([2]);
  });

  it('skips what cannot be restored, each with its reason, and restores the rest', async () => {
    const good = await fileWithTwoVersions('Mix/good.bin');
    const noSuchVersion = await fileWithTwoVersions('Mix/versionless.bin');
    const current = await fileWithTwoVersions('Mix/current.bin');
    const blobless = await fileWithTwoVersions('Mix/blobless.bin');
    await stack.storage.delete([(await versionRow(blobless.fileId, 1)).storage_key]);
    const other = await stack.seed.project();
    const foreign = await pushFile(other.api, other.projectId, 'Secret/theirs.bin', randomBytes(8));
    const unknown = randomUUID();
    const res = await p.api.post(restoreUrl(), {
      files: [
        { fileId: foreign.fileId, toVersion: 1 },
        { fileId: good.fileId, toVersion: 1 },
        { fileId: noSuchVersion.fileId, toVersion: 9 },
        { fileId: current.fileId, toVersion: 2 },
        { fileId: blobless.fileId, toVersion: 1 },
        { fileId: unknown, toVersion: 1 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.restored).toEqual([{ fileId: good.fileId, newVersion: 3 }]);
    expect(res.body.skipped).toEqual([
      { fileId: foreign.fileId, toVersion: 1, code: 'not_found', message: 'File not found' },
      { fileId: noSuchVersion.fileId, toVersion: 9, code: 'version_not_found', message: 'Version 9 of this file does not exist' },
      { fileId: current.fileId, toVersion: 2, code: 'already_current', message: "The file's committed content is already that of version 2" },
      { fileId: blobless.fileId, toVersion: 1, code: 'blob_missing', message: 'The content of version 1 is missing from storage' },
      { fileId: unknown, toVersion: 1, code: 'not_found', message: 'File not found' },
    ]);
    // Another project's file reads exactly like one that never existed, and its path never leaks.
    expect(JSON.stringify(res.body)).not.toContain('Secret');
    // Skipped files got no version.
    for (const f of [noSuchVersion, current, blobless]) expect(await versionRow(f.fileId, 3)).toBeUndefined();
  });

  it('treats content equal to the tip as current whatever its version number', async () => {
    const bytes = randomBytes(64);
    const v1 = await push('Same/twice.bin', bytes);
    await commitAll([v1]);
    const v2 = await push('Same/twice.bin', bytes); // dedup: version 2 has version 1's bytes
    await commitAll([v2]);
    const res = await p.api.post(restoreUrl(), { files: [{ fileId: v1.fileId, toVersion: 1 }] });
    expect(res).toMatchObject({ status: 422, body: { code: 'nothing_to_restore', skipped: [{ fileId: v1.fileId, toVersion: 1, code: 'already_current' }] } });
  });

  it('makes no empty commit: nothing restorable answers 422 nothing_to_restore with every skip', async () => {
    const f = await fileWithTwoVersions('Empty/f.bin');
    const before = await probeSequence();
    const res = await p.api.post(restoreUrl(), {
      files: [
        { fileId: f.fileId, toVersion: 5 },
        { fileId: randomUUID(), toVersion: 1 },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'nothing_to_restore', message: expect.stringContaining('2 file(s)') });
    expect(res.body.skipped.map((s: { code: string }) => s.code)).toEqual(['version_not_found', 'not_found']);
    expect(await probeSequence()).toBe(before + 1);
  });

  it.each([
    ['no files field', {}, 'files'],
    ['files that are not an array', { files: 'all' }, 'files'],
    ['no files', { files: [] }, 'files'],
    ['a malformed fileId', { files: [{ fileId: 'abc', toVersion: 1 }] }, 'files.0.fileId'],
    ['no toVersion', { files: [{ fileId: randomUUID() }] }, 'files.0.toVersion'],
    ['toVersion 0', { files: [{ fileId: randomUUID(), toVersion: 0 }] }, 'files.0.toVersion'],
    ['a fractional toVersion', { files: [{ fileId: randomUUID(), toVersion: 1.5 }] }, 'files.0.toVersion'],
    ['a string toVersion', { files: [{ fileId: randomUUID(), toVersion: '1' }] }, 'files.0.toVersion'],
    ['a bad second entry', { files: [{ fileId: randomUUID(), toVersion: 1 }, null] }, 'files.1'],
  ])('answers 400 for %s', async (_name, body, field) => {
    const res = await p.api.post(restoreUrl(), body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.message).toContain(field);
  });

  it('answers 400 for a JSON body that is not an object, or not JSON', async () => {
    expect(await p.api.post(restoreUrl(), '[1]')).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    expect(await p.api.post(restoreUrl(), '{"files":')).toMatchObject({ status: 400, body: { code: 'invalid_json' } });
  });

  it('answers 400 naming a file listed twice, in any letter case, and restores nothing', async () => {
    const f = await fileWithTwoVersions('Twice/f.bin');
    const res = await p.api.post(restoreUrl(), {
      files: [
        { fileId: f.fileId, toVersion: 1 },
        { fileId: f.fileId.toUpperCase(), toVersion: 2 },
      ],
    });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed', duplicateFileIds: [f.fileId] } });
    expect(await versionRow(f.fileId, 3)).toBeUndefined();
  });

  it('answers 413 batch_too_large above 25,000 files', async () => {
    const files = Array.from({ length: 25_001 }, () => ({ fileId: randomUUID(), toVersion: 1 }));
    const res = await p.api.post(restoreUrl(), { files });
    expect(res).toMatchObject({ status: 413, body: { code: 'batch_too_large', max: 25_000 } });
  });

  it('answers 404 for another project in the path, as every project route does', async () => {
    const other = await stack.seed.project();
    const res = await p.api.post(`/api/v1/projects/${other.projectId}/restore`, { files: [{ fileId: randomUUID(), toVersion: 1 }] });
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('answers 409 file_locked, as a commit would, while a teammate holds a lock; a retry after the release reuses the versions made', async () => {
    const f = await fileWithTwoVersions('Locked/level.umap');
    const teammate = await stack.seed.member(p.orgId, p.projectId, 'member');
    const locked = await teammate.api.post(`/api/v1/projects/${p.projectId}/locks`, { fileIds: [f.fileId] });
    expect(locked.body.acquired).toHaveLength(1);
    const headers = { 'X-Idempotency-Key': `restore-${randomUUID()}` };
    const refused = await p.api.post(restoreUrl(), { files: [{ fileId: f.fileId, toVersion: 1 }] }, headers);
    expect(refused).toMatchObject({ status: 409, body: { code: 'file_locked', lockedFiles: [{ fileId: f.fileId, userId: teammate.userId }] } });
    // The version made for the refused restore stays invisible.
    expect((await mainVersions(f.fileId)).map((v) => v.version)).toEqual([2, 1]);
    expect(await versionRow(f.fileId, 3)).toMatchObject({ origin: 'restore' });
    await teammate.api.delete(`/api/v1/projects/${p.projectId}/locks`, { fileIds: [f.fileId] });
    const retried = await p.api.post(restoreUrl(), { files: [{ fileId: f.fileId, toVersion: 1 }] }, headers);
    expect(retried).toMatchObject({ status: 200, body: { restored: [{ fileId: f.fileId, newVersion: 3 }] } });
    expect((await mainVersions(f.fileId)).map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it('restores a file locked by the caller, and releases the lock as a commit does', async () => {
    const f = await fileWithTwoVersions('Locked/mine.umap');
    await p.api.post(`/api/v1/projects/${p.projectId}/locks`, { fileIds: [f.fileId] });
    const res = await p.api.post(restoreUrl(), { files: [{ fileId: f.fileId, toVersion: 1 }] });
    expect(res.status).toBe(200);
    const locks = await p.api.get(`/api/v1/projects/${p.projectId}/locks`);
    expect(locks.body.data.map((l: { fileId: string }) => l.fileId)).not.toContain(f.fileId);
  });

  describe('idempotency', () => {
    const key = () => ({ 'X-Idempotency-Key': `restore-${randomUUID()}` });

    it('replays the first result for a retry with the same body, and restores once', async () => {
      const f = await fileWithTwoVersions('Idem/once.bin');
      const headers = key();
      const first = await p.api.post(restoreUrl(), { files: [{ fileId: f.fileId, toVersion: 1 }] }, headers);
      const retry = await p.api.post(restoreUrl(), { files: [{ toVersion: 1, fileId: f.fileId }] }, headers);
      expect(first.status).toBe(200);
      expect(retry).toMatchObject({ status: 200, body: first.body });
      expect(await probeSequence()).toBe(first.body.sequenceNum + 1);
      expect((await mainVersions(f.fileId)).map((v) => v.version)).toEqual([3, 2, 1]);
    });

    it('answers 422 for the same key with a different body', async () => {
      const f = await fileWithTwoVersions('Idem/other-body.bin');
      const headers = key();
      await p.api.post(restoreUrl(), { files: [{ fileId: f.fileId, toVersion: 1 }] }, headers);
      const res = await p.api.post(restoreUrl(), { files: [{ fileId: f.fileId, toVersion: 2 }] }, headers);
      expect(res).toMatchObject({ status: 422, body: { code: 'idempotency_key_reused' } });
    });

    it('scopes keys to the API key: a teammate reusing the string gets a restore of their own', async () => {
      const teammate = await stack.seed.member(p.orgId, p.projectId, 'member');
      const f = await fileWithTwoVersions('Idem/scoped.bin');
      const headers = key();
      const mine = await p.api.post(restoreUrl(), { files: [{ fileId: f.fileId, toVersion: 1 }] }, headers);
      const theirs = await teammate.api.post(restoreUrl(), { files: [{ fileId: f.fileId, toVersion: 2 }] }, headers);
      expect(theirs.status).toBe(200);
      expect(theirs.body.commitId).not.toBe(mine.body.commitId);
      expect(theirs.body.restored).toEqual([{ fileId: f.fileId, newVersion: 4 }]);
    });

    it('lets racing duplicates through once: the others replay it or answer 409 in progress', async () => {
      const f = await fileWithTwoVersions('Idem/race.bin');
      const headers = key();
      const results = await Promise.all(Array.from({ length: 6 }, () => p.api.post(restoreUrl(), { files: [{ fileId: f.fileId, toVersion: 1 }] }, headers)));
      const done = results.filter((r) => r.status === 200);
      expect(done.length).toBeGreaterThanOrEqual(1);
      expect(new Set(done.map((r) => r.body.commitId)).size).toBe(1);
      for (const r of results.filter((x) => x.status !== 200)) expect(r).toMatchObject({ status: 409, body: { code: 'idempotency_in_progress' } });
      expect((await mainVersions(f.fileId)).map((v) => v.version)).toEqual([3, 2, 1]);
    });

    it('refuses a malformed key with 400', async () => {
      const res = await p.api.post(restoreUrl(), { files: [{ fileId: randomUUID(), toVersion: 1 }] }, { 'X-Idempotency-Key': 'has space' });
      expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    });
  });
});

async function until(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
