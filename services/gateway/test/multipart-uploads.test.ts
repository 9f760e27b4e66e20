import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

const MiB = 1024 * 1024;
const DAY = 24 * 3600 * 1000;
const PART = 8 * MiB;

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('base64');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A file of 8 MiB + 8 MiB + 1 MiB in parts, and the initiate entry that describes it. */
function partedFile(path: string) {
  const parts = [randomBytes(PART), randomBytes(PART), randomBytes(MiB)];
  const bytes = Buffer.concat(parts);
  const entry = {
    path,
    sha256: sha256(bytes),
    size: bytes.length,
    multipart: { partSize: PART, parts: parts.map((part) => ({ size: part.length, contentMd5: md5(part) })) },
  };
  return { parts, bytes, entry };
}

interface PartForm {
  partNumber: number;
  uploadUrl: string;
  requiredHeaders: Record<string, string>;
}

const putPart = (form: PartForm, body: Buffer) => fetch(form.uploadUrl, { method: 'PUT', headers: form.requiredHeaders, body });

describe.each(['local', 's3'] as const)('multipart uploads (%s storage)', (storageDriver) => {
  let stack: TestStack;
  let p: SeededProject;
  const url = (op: string) => `/api/v1/projects/${p.projectId}/files/upload/${op}`;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: storageDriver });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());

  const confirm = (form: { fileId: string; version: number; storageKey: string }, entry: { sha256: string; size: number }) =>
    p.api.post(url('confirm'), { fileId: form.fileId, version: form.version, storageKey: form.storageKey, sha256: entry.sha256, size: entry.size });

  it('resumes from the parts the store holds, refuses a tampered part, and stores the joined bytes', async () => {
    const { parts, bytes, entry } = partedFile('Cinematics/intro.mov');
    const initiated = await p.api.post(url('initiate'), entry);
    expect(initiated.status).toBe(200);
    const form = initiated.body;
    expect(form.uploadUrl).toBeUndefined();
    expect(form.multipart).toMatchObject({ partSize: PART, uploaded: [] });
    expect(form.multipart.parts.map((part: PartForm) => part.partNumber)).toEqual([1, 2, 3]);
    expect(form.multipart.parts[2].requiredHeaders).toMatchObject({ 'Content-Length': String(MiB), 'Content-MD5': md5(parts[2]) });

    expect((await putPart(form.multipart.parts[0], parts[0])).status).toBe(200);
    expect((await putPart(form.multipart.parts[2], parts[2])).status).toBe(200);

    // The client crashed: initiating the same content again resumes the same reservation.
    const again = await p.api.post(url('initiate'), entry);
    expect(again.body).toMatchObject({ fileId: form.fileId, version: form.version, storageKey: form.storageKey });
    expect(again.body.multipart.uploadId).toBe(form.multipart.uploadId);
    expect(again.body.multipart.uploaded.map((part: { partNumber: number; size: number }) => [part.partNumber, part.size])).toEqual([
      [1, PART],
      [3, MiB],
    ]);
    expect(again.body.multipart.parts.map((part: PartForm) => part.partNumber)).toEqual([2]);
    const listed = await p.api.get(url(`${form.fileId}/${form.version}/parts`));
    expect(listed.status).toBe(200);
    expect(listed.body.multipart.parts.map((part: PartForm) => part.partNumber)).toEqual([2]);

    // Not every part is there yet: nothing is joined, nothing recorded.
    const early = await confirm(form, entry);
    expect(early).toMatchObject({ status: 409, body: { code: 'upload_incomplete' } });
    expect(early.body.message).toContain('part 2');

    // A part's URL signs its MD5: other bytes of the same length are refused by the store itself.
    const tampered = Buffer.from(parts[1]);
    tampered[12345] ^= 1;
    const refused = await putPart(listed.body.multipart.parts[0], tampered);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect((await p.api.get(url(`${form.fileId}/${form.version}/parts`))).body.multipart.parts.map((part: PartForm) => part.partNumber)).toEqual([2]);

    expect((await putPart(listed.body.multipart.parts[0], parts[1])).status).toBe(200);
    const confirmed = await confirm(form, entry);
    expect(confirmed).toMatchObject({ status: 200, body: { confirmed: true, version: 1 } });
    // A repeated confirm answers as the first did; the open upload is gone with its reservation.
    expect(await confirm(form, entry)).toMatchObject({ status: 200, body: { confirmed: true, version: 1 } });
    expect((await p.api.get(url(`${form.fileId}/${form.version}/parts`))).status).toBe(404);

    const committed = await p.api.post(`/api/v1/projects/${p.projectId}/commits`, {
      message: 'Intro cinematic',
      fileVersions: [{ fileId: form.fileId, action: 'add', version: 1 }],
    });
    expect(committed.status).toBe(201);
    const links = await p.api.post(`/api/v1/projects/${p.projectId}/files/download-urls`, { files: [{ fileId: form.fileId, version: 1 }] });
    const downloadUrl: string = links.body.results[0].downloadUrl;
    const whole = Buffer.from(await (await fetch(downloadUrl)).arrayBuffer());
    expect(whole.equals(bytes)).toBe(true);
    const ranged = await fetch(downloadUrl, { headers: { range: `bytes=${PART - 10}-${PART + 9}` } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(PART - 10, PART + 10))).toBe(true);
  });

  it('refuses a joined object whose SHA-256 is not the declared one, and records nothing', async () => {
    const { parts, entry } = partedFile('Cinematics/outro.mov');
    const lying = { ...entry, sha256: sha256(randomBytes(8)) };
    const form = (await p.api.post(url('initiate'), lying)).body;
    for (const [i, part] of parts.entries()) expect((await putPart(form.multipart.parts[i], part)).status).toBe(200);
    expect(await confirm(form, lying)).toMatchObject({ status: 422, body: { code: 'content_mismatch' } });
    const versions = await p.api.get(`/api/v1/projects/${p.projectId}/files/${form.fileId}/versions`);
    expect(versions.body.data).toEqual([]);
    // That reservation cannot be resumed any more: a new initiate starts a new upload.
    const fresh = await p.api.post(url('initiate'), lying);
    expect(fresh.body.multipart.uploadId).not.toBe(form.multipart.uploadId);
    expect(fresh.body.multipart.uploaded).toEqual([]);
  });

  it('checks the parts against the size, and keeps the single PUT for clients that do not ask for parts', async () => {
    const { entry } = partedFile('Builds/game.pak');
    const bad = await p.api.post(url('initiate'), { ...entry, size: entry.size + 1 });
    expect(bad).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    expect(bad.body.message).toContain('add up');
    const uneven = { ...entry, multipart: { ...entry.multipart, parts: [entry.multipart.parts[2], ...entry.multipart.parts.slice(1)] } };
    expect((await p.api.post(url('initiate'), uneven)).status).toBe(400);
    expect((await p.api.post(url('initiate'), { ...entry, multipart: { ...entry.multipart, partSize: MiB } })).status).toBe(400);
    const tooMany = { partSize: PART, parts: Array.from({ length: 10_001 }, () => ({ size: PART, contentMd5: md5(Buffer.alloc(1)) })) };
    expect((await p.api.post(url('initiate'), { ...entry, size: 10_001 * PART, multipart: tooMany })).status).toBe(400);

    const sixGiB = 6 * 1024 * MiB;
    const single = await p.api.post(url('initiate'), { path: 'Builds/big.pak', sha256: entry.sha256, size: sixGiB, contentMd5: md5(Buffer.alloc(1)) });
    expect(single).toMatchObject({ status: 413, body: { code: 'file_too_large' } });
    const count = sixGiB / (64 * MiB);
    const parted = await p.api.post(url('initiate'), {
      path: 'Builds/big.pak',
      sha256: entry.sha256,
      size: sixGiB,
      multipart: { partSize: 64 * MiB, parts: Array.from({ length: count }, () => ({ size: 64 * MiB, contentMd5: md5(Buffer.alloc(1)) })) },
    });
    expect(parted.status).toBe(200);
    expect(parted.body.multipart.parts).toHaveLength(count);
  });

  it('answers 404 for the parts of a version with no open upload, and 400 for a malformed version', async () => {
    expect((await p.api.get(url(`${randomUUID()}/1/parts`))).status).toBe(404);
    expect((await p.api.get(url(`${randomUUID()}/0/parts`))).status).toBe(400);
    expect((await p.api.get(url(`${randomUUID()}/x/parts`))).status).toBe(400);
    const other = await stack.seed.project();
    const form = (await other.api.post(`/api/v1/projects/${other.projectId}/files/upload/initiate`, partedFile('secret.bin').entry)).body;
    expect((await p.api.get(url(`${form.fileId}/${form.version}/parts`))).status).toBe(404);
  });

  it('aborts the store uploads of expired reservations, and those no reservation knows', async () => {
    const { parts, entry } = partedFile('Audio/ambience.wav');
    const form = (await p.api.post(url('initiate'), entry)).body;
    expect((await putPart(form.multipart.parts[0], parts[0])).status).toBe(200);
    const orphanKey = `p/${p.projectId}/u/${randomUUID()}`;
    const orphan = await stack.storage.createMultipart(orphanKey);
    expect(await stack.storage.listParts(orphanKey, orphan)).toEqual([]);

    await stack.collectReservations(Date.now() + DAY);
    expect(await stack.storage.listParts(form.storageKey, form.multipart.uploadId)).toBeNull();
    expect(await stack.storage.listParts(orphanKey, orphan)).toBeNull();
    expect((await confirm(form, entry)).status).toBe(404);
  });
});
