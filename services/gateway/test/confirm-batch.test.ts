import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeContent, pushFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { mapConcurrently } from '@lode/storage';

interface Initiated {
  path: string;
  fileId: string;
  version: number;
  storageKey?: string;
  uploadUrl?: string;
  requiredHeaders?: Record<string, string>;
  dedup?: true;
  bytes: Buffer;
}

/** The confirm body for an initiated file, as a client sends it. */
function confirmBody(f: Initiated): Record<string, unknown> {
  const { sha256, size } = describeContent(f.bytes);
  return { fileId: f.fileId, version: f.version, sha256, size, ...(f.dedup ? { dedup: true } : { storageKey: f.storageKey }) };
}

describe.each([
  ['local', 'local'],
  ['nats', 's3'],
] as const)('POST /files/upload/confirm-batch (%s bus, %s storage)', (bus, storage) => {
  let stack: TestStack;
  let p: SeededProject;
  const url = (op: string) => `/api/v1/projects/${p.projectId}/files/upload/${op}`;

  async function initiate(files: { path: string; bytes: Buffer; sha256?: string }[]): Promise<Initiated[]> {
    const res = await p.api.post(url('initiate-batch'), {
      files: files.map((f) => ({ path: f.path, ...describeContent(f.bytes), ...(f.sha256 ? { sha256: f.sha256 } : {}) })),
    });
    expect(res.status).toBe(200);
    return res.body.results.map((r: Omit<Initiated, 'bytes'>, i: number) => ({ ...r, bytes: files[i].bytes }));
  }

  async function put(f: Initiated): Promise<void> {
    const res = await fetch(f.uploadUrl ?? '', { method: 'PUT', headers: f.requiredHeaders, body: f.bytes });
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    stack = await startTestStack({ bus, storage });
    p = await stack.seed.project();
  }, 120_000);
  afterAll(async () => stack?.stop());

  it('answers one result per entry, in order, each confirmed or failed with the single confirm code', async () => {
    const known = randomBytes(300);
    await pushFile(p.api, p.projectId, 'mixed/known.bin', known);
    const [uploaded, dedup, notPut, declaredOther] = await initiate([
      { path: 'mixed/uploaded.bin', bytes: randomBytes(1000) },
      { path: 'mixed/copy-of-known.bin', bytes: known },
      { path: 'mixed/not-put.bin', bytes: randomBytes(10) },
      { path: 'mixed/declared-other.bin', bytes: randomBytes(20) },
    ]);
    expect(dedup.dedup).toBe(true);
    await put(uploaded);
    await put(declaredOther);
    const unknownKey = { ...confirmBody(uploaded), fileId: randomUUID(), storageKey: `p/${p.projectId}/u/${randomUUID()}` };
    const otherSha256 = { ...confirmBody(declaredOther), sha256: createHash('sha256').update('something else').digest('hex') };
    const missingSha256 = { fileId: notPut.fileId, version: 1, storageKey: notPut.storageKey, size: 10 };

    const res = await p.api.post(url('confirm-batch'), {
      files: [confirmBody(uploaded), confirmBody(dedup), confirmBody(notPut), unknownKey, otherSha256, missingSha256, confirmBody(uploaded), 'not an object'],
    });

    expect(res.status).toBe(200);
    const failed = (code: string, fileId: string | null, version: number | null) => ({ fileId, version, code, error: expect.any(String) });
    expect(res.body.results).toEqual([
      { fileId: uploaded.fileId, version: 1, confirmed: true },
      { fileId: dedup.fileId, version: 1, confirmed: true },
      failed('upload_incomplete', notPut.fileId, 1),
      failed('not_found', unknownKey.fileId, 1),
      failed('content_mismatch', declaredOther.fileId, 1),
      failed('validation_failed', notPut.fileId, 1),
      // One version per file per batch: a file listed again fails after its first occurrence.
      failed('validation_failed', uploaded.fileId, 1),
      failed('validation_failed', null, null),
    ]);
    expect(res.body.results[5].error).toMatch(/sha256/);

    // The confirmed versions are real: they commit, and the next upload of the path is version 2.
    const commit = await p.api.post(`/api/v1/projects/${p.projectId}/commits`, {
      message: 'batch-confirmed files',
      fileVersions: [
        { fileId: uploaded.fileId, version: 1, action: 'add' },
        { fileId: dedup.fileId, version: 1, action: 'add' },
      ],
    });
    expect(commit.status).toBe(201);
    expect((await pushFile(p.api, p.projectId, 'mixed/uploaded.bin', randomBytes(5))).version).toBe(2);
    // The unconfirmed reservations were left as they were: uploading the bytes then confirming works.
    await put(notPut);
    expect(await p.api.post(url('confirm-batch'), { files: [confirmBody(notPut)] })).toMatchObject({
      status: 200,
      body: { results: [{ fileId: notPut.fileId, version: 1, confirmed: true }] },
    });
  });

  it('answers a repeated confirm as the first did, whether the first was single or batched', async () => {
    const files = await initiate([
      { path: 'again/a.bin', bytes: randomBytes(64) },
      { path: 'again/b.bin', bytes: randomBytes(65) },
    ]);
    await Promise.all(files.map(put));
    expect((await p.api.post(url('confirm'), confirmBody(files[0]))).status).toBe(200);
    const expected = { status: 200, body: { results: files.map((f) => ({ fileId: f.fileId, version: 1, confirmed: true })) } };
    expect(await p.api.post(url('confirm-batch'), { files: files.map(confirmBody) })).toMatchObject(expected);
    expect(await p.api.post(url('confirm-batch'), { files: files.map(confirmBody) })).toMatchObject(expected);
    expect(await p.api.post(url('confirm'), confirmBody(files[1]))).toMatchObject({ status: 200, body: { confirmed: true, version: 1 } });
  });

  it('confirms the same files sent by two batches at once in both, and two dedup reservations of the same content and number', async () => {
    const files = await initiate(Array.from({ length: 20 }, (_, i) => ({ path: `twice/${i}.bin`, bytes: randomBytes(40) })));
    await Promise.all(files.map(put));
    const expected = { status: 200, body: { results: files.map((f) => ({ fileId: f.fileId, version: 1, confirmed: true })) } };
    const answers = await Promise.all([0, 1].map(() => p.api.post(url('confirm-batch'), { files: files.map(confirmBody) })));
    for (const answer of answers) expect(answer).toMatchObject(expected);

    const known = files[0].bytes;
    const [first, second] = [...(await initiate([{ path: 'twice/copy.bin', bytes: known }])), ...(await initiate([{ path: 'twice/copy.bin', bytes: known }]))];
    expect([first.dedup, second.dedup, first.version, second.version]).toEqual([true, true, 1, 1]);
    for (const copy of [first, second]) {
      expect((await p.api.post(url('confirm-batch'), { files: [confirmBody(copy)] })).body.results).toEqual([
        { fileId: first.fileId, version: 1, confirmed: true },
      ]);
    }
  });

  it('gives a version to exactly one of several batches racing for it; the others get version_conflict with versionConflict', async () => {
    const rivals = await Promise.all(Array.from({ length: 5 }, () => initiate([{ path: 'contested/level.umap', bytes: randomBytes(128) }])));
    const reservations = rivals.map(([f]) => f);
    expect(new Set(reservations.map((f) => f.version))).toEqual(new Set([1]));
    await Promise.all(reservations.map(put));
    const answers = await Promise.all(reservations.map((f) => p.api.post(url('confirm-batch'), { files: [confirmBody(f)] })));
    const results = answers.map((a) => {
      expect(a.status).toBe(200);
      return a.body.results[0];
    });
    expect(results.filter((r) => r.confirmed === true)).toHaveLength(1);
    const losers = results.filter((r) => r.confirmed !== true);
    expect(losers).toHaveLength(4);
    for (const loser of losers)
      expect(loser).toEqual({ fileId: reservations[0].fileId, version: 1, code: 'version_conflict', versionConflict: true, error: expect.any(String) });
    // Initiating again reserves a fresh version, which confirms.
    const [again] = await initiate([{ path: 'contested/level.umap', bytes: randomBytes(7) }]);
    expect(again.version).toBe(2);
    await put(again);
    expect((await p.api.post(url('confirm-batch'), { files: [confirmBody(again)] })).body.results[0]).toMatchObject({ confirmed: true, version: 2 });
  });

  // S3 has every object read back for its SHA-256: fewer files keep the test short on a loaded host.
  const many = storage === 's3' ? 200 : 1000;
  it(`confirms ${many} files in one call`, async () => {
    const files = await initiate(Array.from({ length: many }, (_, i) => ({ path: `many/${i}.bin`, bytes: randomBytes(16) })));
    await mapConcurrently(files, 16, put);
    const res = await p.api.post(url('confirm-batch'), { files: files.map(confirmBody) });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(many);
    expect(
      res.body.results.every((r: { confirmed?: boolean }, i: number) => r.confirmed === true && (r as { fileId?: string }).fileId === files[i].fileId),
    ).toBe(true);
  }, 180_000);

  it('refuses an empty batch (400) and one above 1,000 entries (413) before reading any', async () => {
    expect(await p.api.post(url('confirm-batch'), { files: [] })).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    expect(await p.api.post(url('confirm-batch'), { files: 'x' })).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    const tooMany = Array.from({ length: 1001 }, () => ({}));
    expect(await p.api.post(url('confirm-batch'), { files: tooMany })).toMatchObject({ status: 413, body: { code: 'batch_too_large' } });
  });

  it('never confirms another project’s reservation: it is not_found', async () => {
    const [mine] = await initiate([{ path: 'private/secret.bin', bytes: randomBytes(32) }]);
    await put(mine);
    const other = await stack.seed.project();
    const res = await other.api.post(`/api/v1/projects/${other.projectId}/files/upload/confirm-batch`, { files: [confirmBody(mine)] });
    expect(res.body.results).toEqual([{ fileId: mine.fileId, version: 1, code: 'not_found', error: expect.any(String) }]);
  });
});

describe('confirm-batch on S3 checks the SHA-256 of the stored bytes', () => {
  let stack: TestStack;
  let p: SeededProject;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: 's3' });
    p = await stack.seed.project();
  }, 120_000);
  afterAll(async () => stack?.stop());

  it('fails only the entry whose stored bytes differ from its declared SHA-256, and deletes them', async () => {
    // S3 checks length and MD5 on PUT, not the SHA-256: bytes whose declared SHA-256 is wrong get stored.
    const good = randomBytes(50);
    const bad = randomBytes(50);
    const files = [
      { path: 'hash/good.bin', ...describeContent(good) },
      { path: 'hash/bad.bin', ...describeContent(bad), sha256: createHash('sha256').update('not these bytes').digest('hex') },
    ];
    const initiated = await p.api.post(`/api/v1/projects/${p.projectId}/files/upload/initiate-batch`, { files });
    const [g, b] = initiated.body.results;
    for (const [form, bytes] of [
      [g, good],
      [b, bad],
    ] as const) {
      expect((await fetch(form.uploadUrl, { method: 'PUT', headers: form.requiredHeaders, body: bytes })).status).toBe(200);
    }
    const confirm = files.map((f, i) => ({
      fileId: initiated.body.results[i].fileId,
      version: 1,
      storageKey: initiated.body.results[i].storageKey,
      sha256: f.sha256,
      size: f.size,
    }));
    const res = await p.api.post(`/api/v1/projects/${p.projectId}/files/upload/confirm-batch`, { files: confirm });
    expect(res.body.results).toEqual([
      { fileId: g.fileId, version: 1, confirmed: true },
      { fileId: b.fileId, version: 1, code: 'content_mismatch', error: expect.stringMatching(/SHA-256/) },
    ]);
    expect(await stack.storage.head(b.storageKey)).toBeNull();
  });
});
