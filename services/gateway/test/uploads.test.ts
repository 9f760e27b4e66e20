import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeContent, pushFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

const GiB = 1024 ** 3;

describe.each([
  ['local', 'local'],
  ['nats', 'local'],
  ['nats', 's3'],
] as const)('upload flow through the gateway (%s bus, %s storage)', (bus, storageDriver) => {
  let stack: TestStack;
  let p: SeededProject;
  const url = (op: string) => `/api/v1/projects/${p.projectId}/files/upload/${op}`;

  beforeAll(async () => {
    stack = await startTestStack({ bus, storage: storageDriver });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());

  it('initiates with requiredHeaders, accepts the PUT, and confirms the version', async () => {
    const bytes = randomBytes(1000);
    const content = describeContent(bytes);
    const res = await p.api.post(url('initiate'), { path: 'Levels/forest.umap', ...content });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      path: 'Levels/forest.umap',
      fileId: expect.any(String),
      version: 1,
      storageKey: expect.any(String),
      uploadUrl: expect.stringMatching(/^http/),
      // S3 keeps and serves an object's type: it is signed in, and the PUT must send it.
      requiredHeaders: {
        'Content-Length': '1000',
        'Content-MD5': content.contentMd5,
        ...(storageDriver === 's3' ? { 'Content-Type': 'application/octet-stream' } : {}),
      },
    });
    const put = await fetch(res.body.uploadUrl, { method: 'PUT', headers: res.body.requiredHeaders, body: bytes });
    expect(put.status).toBe(200);
    const confirm = { fileId: res.body.fileId, version: 1, storageKey: res.body.storageKey, ...content };
    expect(await p.api.post(url('confirm'), confirm)).toMatchObject({ status: 200, body: { confirmed: true, version: 1 } });
    // A repeated confirm (a client retrying after a lost reply) answers the same.
    expect(await p.api.post(url('confirm'), confirm)).toMatchObject({ status: 200, body: { confirmed: true, version: 1 } });
    // The next upload of the path reserves version 2.
    const next = await pushFile(p.api, p.projectId, 'Levels/forest.umap', randomBytes(10));
    expect(next.version).toBe(2);
  });

  it('refuses a confirm before the bytes are in storage', async () => {
    const content = describeContent(randomBytes(10));
    const res = await p.api.post(url('initiate'), { path: 'early.bin', ...content });
    const confirm = await p.api.post(url('confirm'), { fileId: res.body.fileId, version: 1, storageKey: res.body.storageKey, ...content });
    expect(confirm.status).toBe(409);
    expect(confirm.body.code).toBe('upload_incomplete');
  });

  it('lets exactly one of ten racing uploads of a version win; the others get 409 versionConflict', async () => {
    const uploads = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const bytes = randomBytes(64);
        const content = describeContent(bytes);
        const res = await p.api.post(url('initiate'), { path: 'contested.psd', ...content });
        await fetch(res.body.uploadUrl, { method: 'PUT', headers: res.body.requiredHeaders, body: bytes });
        return { fileId: res.body.fileId, version: res.body.version, storageKey: res.body.storageKey, ...content };
      }),
    );
    expect(new Set(uploads.map((u) => u.version))).toEqual(new Set([1]));
    const confirms = await Promise.all(uploads.map((u) => p.api.post(url('confirm'), u)));
    expect(confirms.filter((c) => c.status === 200)).toHaveLength(1);
    const losers = confirms.filter((c) => c.status !== 200);
    expect(losers).toHaveLength(9);
    for (const loser of losers) {
      expect(loser.status).toBe(409);
      expect(loser.body).toMatchObject({ versionConflict: true, code: 'version_conflict', message: expect.any(String) });
    }
    // Initiating again reserves a fresh version.
    const again = await pushFile(p.api, p.projectId, 'contested.psd', randomBytes(5));
    expect(again.version).toBe(2);
  });

  it('deduplicates content already in the project, never across projects', async () => {
    const bytes = randomBytes(2048);
    await pushFile(p.api, p.projectId, 'textures/rock.png', bytes);
    const content = describeContent(bytes);
    const res = await p.api.post(url('initiate-batch'), { files: [{ path: 'textures/rock-copy.png', ...content }] });
    expect(res.body.results[0]).toEqual({ path: 'textures/rock-copy.png', fileId: expect.any(String), version: 1, dedup: true });
    const confirm = await p.api.post(url('confirm'), { fileId: res.body.results[0].fileId, version: 1, dedup: true, ...content });
    expect(confirm).toMatchObject({ status: 200, body: { confirmed: true, version: 1 } });

    const other = await stack.seed.project();
    const foreign = await other.api.post(`/api/v1/projects/${other.projectId}/files/upload/initiate`, { path: 'rock.png', ...content });
    expect(foreign.body.dedup).toBeUndefined();
    expect(foreign.body.uploadUrl).toBeDefined();
  });

  it('isolates failing entries of a batch and keeps results in request order', async () => {
    const good = describeContent(randomBytes(10));
    await pushFile(p.api, p.projectId, 'Case/File.txt', randomBytes(3));
    const res = await p.api.post(url('initiate-batch'), {
      files: [
        { path: 'batch/ok.bin', ...good },
        { path: 'batch/huge.bin', ...good, size: 5 * GiB + 1 },
        { path: '../escape', ...good },
        { path: 'case/file.TXT', ...good },
        { path: 'batch/no-md5.bin', sha256: good.sha256, size: 10 },
      ],
    });
    expect(res.status).toBe(200);
    const [ok, huge, escape, caseClash, noMd5] = res.body.results;
    expect(ok).toMatchObject({ path: 'batch/ok.bin', version: 1, uploadUrl: expect.any(String) });
    expect(huge).toEqual({ path: 'batch/huge.bin', error: expect.any(String), code: 'file_too_large' });
    expect(escape).toMatchObject({ path: '../escape', code: 'validation_failed' });
    expect(caseClash).toMatchObject({ path: 'case/file.TXT', code: 'path_case_conflict' });
    expect(noMd5).toMatchObject({ path: 'batch/no-md5.bin', code: 'validation_failed' });
  });

  it('takes a 1,000-entry batch and refuses 1,001 or none', async () => {
    const content = describeContent(randomBytes(8));
    const files = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `bulk/${i}.bin`, ...content }));
    const full = await p.api.post(url('initiate-batch'), { files: files(1000) });
    expect(full.status).toBe(200);
    expect(full.body.results).toHaveLength(1000);
    expect(full.body.results.every((r: { uploadUrl?: string }) => r.uploadUrl)).toBe(true);
    expect((await p.api.post(url('initiate-batch'), { files: files(1001) })).status).toBe(413);
    expect((await p.api.post(url('initiate-batch'), { files: [] })).status).toBe(400);
  });

  it('answers 413 for a single file above 5 GiB and 400 for a path it cannot accept', async () => {
    const content = describeContent(randomBytes(4));
    const huge = await p.api.post(url('initiate'), { path: 'movie.mov', ...content, size: 5 * GiB + 1 });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ code: 'file_too_large', message: expect.any(String) });
    expect((await p.api.post(url('initiate'), { path: 'movie.mov', ...content, size: 5 * GiB })).status).toBe(200);
    const bad = await p.api.post(url('initiate'), { path: 'a//b', ...content });
    expect(bad.status).toBe(400);
    const clash = await p.api.post(url('initiate'), { path: 'MOVIE.MOV', ...content });
    expect(clash).toMatchObject({ status: 409, body: { code: 'path_case_conflict' } });
  });

  it('refuses a confirm whose content differs from what was initiated', async () => {
    const bytes = randomBytes(10);
    const content = describeContent(bytes);
    const res = await p.api.post(url('initiate'), { path: 'liar.bin', ...content });
    await fetch(res.body.uploadUrl, { method: 'PUT', headers: res.body.requiredHeaders, body: bytes });
    const lie = await p.api.post(url('confirm'), { fileId: res.body.fileId, version: 1, storageKey: res.body.storageKey, ...content, sha256: 'b'.repeat(64) });
    expect(lie.status).toBe(422);
    expect(lie.body.code).toBe('content_mismatch');
  });

  it('never records a version whose stored bytes differ from the declared SHA-256', async () => {
    // A lying client: MD5 and length describe the bytes it sends; the SHA-256 it declares does not.
    const actual = randomBytes(64);
    const declared = describeContent(randomBytes(64)).sha256;
    const res = await p.api.post(url('initiate'), { path: 'lie.bin', ...describeContent(actual), sha256: declared });
    const put = await fetch(res.body.uploadUrl, { method: 'PUT', headers: res.body.requiredHeaders, body: actual });
    const confirm = await p.api.post(url('confirm'), {
      fileId: res.body.fileId,
      version: 1,
      storageKey: res.body.storageKey,
      ...describeContent(actual),
      sha256: declared,
    });
    // The local driver refuses the PUT itself; S3 stores it, and confirm refuses and removes it.
    if (put.status === 200) expect(confirm).toMatchObject({ status: 422, body: { code: 'content_mismatch' } });
    else expect(confirm).toMatchObject({ status: 409, body: { code: 'upload_incomplete' } });
    // Nothing was recorded: the honest upload of the same path still gets version 1, and the lie
    // never became dedup-eligible content.
    const honest = await p.api.post(url('initiate'), { path: 'other.bin', ...describeContent(actual), sha256: declared });
    expect(honest.body.dedup).toBeUndefined();
    expect((await pushFile(p.api, p.projectId, 'lie.bin', actual)).version).toBe(1);
  });

  it('does not let one project confirm into another', async () => {
    const bytes = randomBytes(10);
    const content = describeContent(bytes);
    const res = await p.api.post(url('initiate'), { path: 'mine.bin', ...content });
    await fetch(res.body.uploadUrl, { method: 'PUT', headers: res.body.requiredHeaders, body: bytes });
    const other = await stack.seed.project();
    const stolen = await other.api.post(`/api/v1/projects/${other.projectId}/files/upload/confirm`, {
      fileId: res.body.fileId,
      version: 1,
      storageKey: res.body.storageKey,
      ...content,
    });
    expect(stolen.status).toBe(404);
  });
});
