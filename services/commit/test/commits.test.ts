import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commit } from '@lode/contracts';
import { describeContent, pushFile, type PushedFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(['local', 'nats'] as const)('commits and version history through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  let p: SeededProject;
  const commits = () => `/api/v1/projects/${p.projectId}/commits`;
  const versions = (fileId: string, query = '') => `/api/v1/projects/${p.projectId}/files/${fileId}/versions${query}`;
  const push = (path: string, bytes = randomBytes(32)) => pushFile(p.api, p.projectId, path, bytes);
  const add = (f: PushedFile) => ({ fileId: f.fileId, version: f.version, action: 'add' });
  const modify = (f: PushedFile) => ({ fileId: f.fileId, version: f.version, action: 'modify' });
  /** The next sequence number the project will hand out, proven by making a commit. */
  const probeSequence = async () => {
    const f = await push(`probe/${randomUUID()}.bin`);
    const res = await p.api.post(commits(), { message: 'probe', fileVersions: [add(f)] });
    expect(res.status).toBe(201);
    return res.body.sequenceNum as number;
  };

  beforeAll(async () => {
    stack = await startTestStack({ bus });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());

  it('numbers commits 1, 2, 3 per project and answers 201 with the commit', async () => {
    const a = await push('Levels/a.umap');
    const b = await push('Levels/b.umap');
    const first = await p.api.post(commits(), { message: 'Add levels', fileVersions: [add(a), add(b)] });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), sequenceNum: 1, message: 'Add levels', fileCount: 2, branch: 'main' });
    const a2 = await push('Levels/a.umap');
    const second = await p.api.post(commits(), { message: 'Tweak a', fileVersions: [modify(a2)] });
    expect(second.body).toMatchObject({ sequenceNum: 2, fileCount: 1, branch: 'main' });
    // Another project counts on its own.
    const other = await stack.seed.project();
    const o = await pushFile(other.api, other.projectId, 'x.bin', randomBytes(8));
    const elsewhere = await other.api.post(`/api/v1/projects/${other.projectId}/commits`, { message: 'x', fileVersions: [add(o)] });
    expect(elsewhere.body.sequenceNum).toBe(1);
  });

  it.each([
    ['no message', { fileVersions: [] }, 'message'],
    ['an empty message', { message: '  ', fileVersions: [{ fileId: randomUUID(), version: 1, action: 'add' }] }, 'message'],
    ['no entries', { message: 'm', fileVersions: [] }, 'fileVersions'],
    ['entries that are not an array', { message: 'm', fileVersions: 'all' }, 'fileVersions'],
    ['add without a version', { message: 'm', fileVersions: [{ fileId: randomUUID(), action: 'add' }] }, 'fileVersions.0.version'],
    ['an unknown action', { message: 'm', fileVersions: [{ fileId: randomUUID(), version: 1, action: 'rename' }] }, 'fileVersions.0.action'],
    ['a malformed fileId', { message: 'm', fileVersions: [{ fileId: 'abc', version: 1, action: 'add' }] }, 'fileVersions.0.fileId'],
    ['version 0', { message: 'm', fileVersions: [{ fileId: randomUUID(), version: 0, action: 'modify' }] }, 'fileVersions.0.version'],
    ['a bad branch name', { message: 'm', branch: '../main', fileVersions: [{ fileId: randomUUID(), version: 1, action: 'add' }] }, 'branch'],
  ])('answers 400 for %s', async (_name, body, field) => {
    const res = await p.api.post(commits(), body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.message).toContain(field);
  });

  it('answers 400 when a file appears twice in one commit', async () => {
    const f = await push('twice.bin');
    const res = await p.api.post(commits(), { message: 'm', fileVersions: [add(f), modify(f)] });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed', duplicateFileIds: [f.fileId] } });
  });

  it('answers 413 naming draft commits above 25,000 entries', async () => {
    const fileVersions = Array.from({ length: commit.MAX_COMMIT_ENTRIES + 1 }, () => ({ fileId: randomUUID(), version: 1, action: 'add' }));
    const res = await p.api.post(commits(), { message: 'too big', fileVersions });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('batch_too_large');
    expect(res.body.message).toMatch(/25000/);
    expect(res.body.message).toMatch(/draft commits/);
  });

  it("answers 404 naming unknown files and another project's files, and commits nothing", async () => {
    const before = await probeSequence();
    const other = await stack.seed.project();
    const foreign = await pushFile(other.api, other.projectId, 'secret.bin', randomBytes(8));
    const mine = await push('mine.bin');
    const unknown = randomUUID();
    const res = await p.api.post(commits(), { message: 'm', fileVersions: [add(mine), add(foreign), { fileId: unknown, version: 1, action: 'add' }] });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', count: 2 });
    expect(res.body.fileIds.sort()).toEqual([foreign.fileId, unknown].sort());
    expect(JSON.stringify(res.body)).not.toContain('secret.bin');
    expect(await probeSequence()).toBe(before + 1);
  });

  it('answers 409 version_not_confirmed for a reserved or nonexistent version', async () => {
    const content = describeContent(randomBytes(16));
    const reserved = await p.api.post(`/api/v1/projects/${p.projectId}/files/upload/initiate`, { path: 'pending.bin', ...content });
    const res = await p.api.post(commits(), {
      message: 'm',
      fileVersions: [{ fileId: reserved.body.fileId, version: reserved.body.version, action: 'add' }],
    });
    expect(res).toMatchObject({ status: 409, body: { code: 'version_not_confirmed', entries: [{ fileId: reserved.body.fileId, version: 1 }] } });
    const f = await push('later.bin');
    const wrong = await p.api.post(commits(), { message: 'm', fileVersions: [{ ...add(f), version: 7 }] });
    expect(wrong).toMatchObject({ status: 409, body: { code: 'version_not_confirmed' } });
  });

  it('refuses a version not newer than the branch holds (409 stale_version), so no commit undoes a teammate’s', async () => {
    const v1 = await push('shared.psd');
    const v2 = await push('shared.psd');
    expect((await p.api.post(commits(), { message: 'v2', fileVersions: [add(v2)] })).status).toBe(201);
    const res = await p.api.post(commits(), { message: 'v1 on top', fileVersions: [modify(v1)] });
    expect(res).toMatchObject({ status: 409, body: { code: 'stale_version', entries: [{ fileId: v1.fileId, version: 1, currentVersion: 2 }] } });
    const again = await p.api.post(commits(), { message: 'v2 again', fileVersions: [modify(v2)] });
    expect(again.body.code).toBe('stale_version');
  });

  it('is atomic: one bad entry rejects the whole commit and uses no sequence number', async () => {
    const good = await push('good.bin');
    const before = await probeSequence();
    const bad = await push('bad.bin');
    const res = await p.api.post(commits(), { message: 'm', fileVersions: [add(good), { fileId: bad.fileId, version: 5, action: 'add' }] });
    expect(res.status).toBe(409);
    const history = await p.api.get(versions(good.fileId));
    expect(history.body.data).toEqual([]);
    expect(await probeSequence()).toBe(before + 1);
  });

  it('deletes a committed file; deleting it again or a never-committed file is 409 file_not_in_branch', async () => {
    const f = await push('doomed.bin');
    await p.api.post(commits(), { message: 'add', fileVersions: [add(f)] });
    const del = await p.api.post(commits(), { message: 'delete', fileVersions: [{ fileId: f.fileId, action: 'delete' }] });
    expect(del).toMatchObject({ status: 201, body: { fileCount: 1 } });
    const again = await p.api.post(commits(), { message: 'delete again', fileVersions: [{ fileId: f.fileId, action: 'delete' }] });
    expect(again).toMatchObject({ status: 409, body: { code: 'file_not_in_branch', fileIds: [f.fileId] } });
    const never = await push('never-committed.bin');
    const res = await p.api.post(commits(), { message: 'm', fileVersions: [{ fileId: never.fileId, action: 'delete' }] });
    expect(res.body.code).toBe('file_not_in_branch');
    // History survives the delete; a newer version brings the file back.
    expect((await p.api.get(versions(f.fileId))).body.data).toHaveLength(1);
    const back = await push('doomed.bin');
    expect(await p.api.post(commits(), { message: 'restore by upload', fileVersions: [add(back)] })).toMatchObject({ status: 201 });
  });

  describe('idempotency', () => {
    const key = () => ({ 'X-Idempotency-Key': `idem-${randomUUID()}` });

    it('replays the first result for a retry with the same body, and commits once', async () => {
      const f = await push('idem.bin');
      const headers = key();
      const body = { message: 'once', fileVersions: [add(f)] };
      const first = await p.api.post(commits(), body, headers);
      const retry = await p.api.post(commits(), { fileVersions: body.fileVersions, message: 'once' }, headers);
      expect(first.status).toBe(201);
      expect(retry).toMatchObject({ status: 201, body: first.body });
      expect(await probeSequence()).toBe(first.body.sequenceNum + 1);
    });

    it('answers 422 for the same key with a different body', async () => {
      const f = await push('idem-2.bin');
      const headers = key();
      await p.api.post(commits(), { message: 'a', fileVersions: [add(f)] }, headers);
      const res = await p.api.post(commits(), { message: 'b', fileVersions: [add(f)] }, headers);
      expect(res).toMatchObject({ status: 422, body: { code: 'idempotency_key_reused' } });
    });

    it('scopes keys to the API key: a teammate reusing the string gets a commit of their own', async () => {
      const teammate = await stack.seed.member(p.orgId, p.projectId, 'member');
      const f = await push('idem-3.bin');
      const g = await push('idem-4.bin');
      const headers = key();
      const mine = await p.api.post(commits(), { message: 'mine', fileVersions: [add(f)] }, headers);
      const theirs = await teammate.api.post(commits(), { message: 'theirs', fileVersions: [add(g)] }, headers);
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).not.toBe(mine.body.id);
    });

    it('lets racing duplicates through once: the others replay it or answer 409 in progress', async () => {
      const f = await push('idem-race.bin');
      const headers = key();
      const body = { message: 'race', fileVersions: [add(f)] };
      const results = await Promise.all(Array.from({ length: 6 }, () => p.api.post(commits(), body, headers)));
      const created = results.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
      for (const r of results.filter((x) => x.status !== 201)) expect(r).toMatchObject({ status: 409, body: { code: 'idempotency_in_progress' } });
      expect(await probeSequence()).toBe(created[0].body.sequenceNum + 1);
    });

    it('refuses a malformed key with 400', async () => {
      const f = await push('idem-bad.bin');
      const res = await p.api.post(commits(), { message: 'm', fileVersions: [add(f)] }, { 'X-Idempotency-Key': 'has space' });
      expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    });
  });

  describe('branches', () => {
    it('starts a new branch from main’s head; its versions stay off main’s history', async () => {
      const v1 = await push('branch/level.umap');
      await p.api.post(commits(), { message: 'main v1', fileVersions: [add(v1)] });
      const v2 = await push('branch/level.umap');
      const onBranch = await p.api.post(commits(), { message: 'experiment', branch: 'feature/lighting', fileVersions: [modify(v2)] });
      expect(onBranch).toMatchObject({ status: 201, body: { branch: 'feature/lighting', fileCount: 1 } });
      // The branch started with main's tree: v1 is already there, so committing it again is stale.
      const stale = await p.api.post(commits(), { message: 'x', branch: 'other', fileVersions: [modify(v1)] });
      expect(stale.body.code).toBe('stale_version');
      const history = await p.api.get(versions(v1.fileId));
      expect(history.body.data.map((v: { version: number }) => v.version)).toEqual([1]);
      // Branch "main" spelled out is the same as omitted.
      const v3 = await push('branch/level.umap');
      expect(await p.api.post(commits(), { message: 'main v3', branch: 'main', fileVersions: [modify(v3)] })).toMatchObject({ body: { branch: 'main' } });
      expect((await p.api.get(versions(v1.fileId))).body.data.map((v: { version: number }) => v.version)).toEqual([3, 1]);
    });
  });

  describe('GET versions', () => {
    let file: PushedFile[];
    const contents = [randomBytes(100), randomBytes(200), randomBytes(300)];

    beforeAll(async () => {
      file = [];
      for (const [i, bytes] of contents.entries()) {
        const f = await push('Textures/rock.png', bytes);
        file.push(f);
        await p.api.post(commits(), { message: `rock ${i + 1}`, fileVersions: [i === 0 ? add(f) : modify(f)] });
      }
    });

    it('lists committed versions newest first with every field and a working download URL', async () => {
      const res = await p.api.get(versions(file[0].fileId));
      expect(res.status).toBe(200);
      expect(res.body.nextCursor).toBeNull();
      expect(res.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
      const newest = res.body.data[0];
      expect(newest).toEqual({
        id: expect.any(String),
        version: 3,
        size: 300,
        sha256: file[2].sha256,
        uploaderId: p.userId,
        uploaderName: expect.any(String),
        commitId: expect.any(String),
        downloadUrl: expect.stringMatching(/^http/),
        createdAt: expect.stringMatching(ISO_MS),
        purged: null,
      });
      const download = await fetch(newest.downloadUrl);
      expect(download.status).toBe(200);
      const bytes = Buffer.from(await download.arrayBuffer());
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(newest.sha256);
    });

    it('pages with an opaque cursor until nextCursor is null', async () => {
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const res: { status: number; body: { data: { version: number }[]; nextCursor: string | null } } = await p.api.get(
          versions(file[0].fileId, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
        );
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(1);
        seen.push(res.body.data[0].version);
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual([3, 2, 1]);
    });

    it('refuses a tampered cursor, or one from another file, with 400', async () => {
      const first = await p.api.get(versions(file[0].fileId, '?limit=1'));
      const cursor: string = first.body.nextCursor;
      const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
      expect((await p.api.get(versions(file[0].fileId, `?cursor=${tampered}`))).status).toBe(400);
      expect((await p.api.get(versions(file[0].fileId, '?cursor=garbage'))).status).toBe(400);
      const other = await push('other-file.bin');
      await p.api.post(commits(), { message: 'other', fileVersions: [add(other)] });
      expect((await p.api.get(versions(other.fileId, `?cursor=${cursor}`))).status).toBe(400);
    });

    it.each(['0', '201', 'abc', '1.5'])('refuses limit=%s with 400', async (limit) => {
      expect(await p.api.get(versions(file[0].fileId, `?limit=${limit}`))).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    });

    it('answers 400 for a malformed fileId and 404 for an unknown or foreign one', async () => {
      expect((await p.api.get(versions('not-a-uuid'))).status).toBe(400);
      expect(await p.api.get(versions(randomUUID()))).toMatchObject({ status: 404, body: { code: 'not_found' } });
      const other = await stack.seed.project();
      const foreign = await pushFile(other.api, other.projectId, 'theirs.bin', randomBytes(8));
      await other.api.post(`/api/v1/projects/${other.projectId}/commits`, { message: 'x', fileVersions: [add(foreign)] });
      const res = await p.api.get(versions(foreign.fileId));
      expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect(res.body.data).toBeUndefined();
    });

    it('answers an empty page for a file uploaded but never committed', async () => {
      const f = await push('uncommitted.bin');
      expect(await p.api.get(versions(f.fileId))).toMatchObject({ status: 200, body: { data: [], nextCursor: null } });
    });
  });
});
