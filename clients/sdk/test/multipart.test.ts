import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import {
  commitFiles,
  downloadFiles,
  hashFile,
  isPartialDownload,
  LodeClient,
  multipartEntry,
  putFile,
  putParts,
  uploadFiles,
  type LocalFile,
  type MultipartForm,
} from '../src/index.ts';

const MiB = 1024 * 1024;
/** Files from 32 MiB go in parts here: a 40 MiB file is 3 parts (16, 16, 8 MiB) up and 2 ranges (32, 8 MiB) down. */
const THRESHOLD = 32 * MiB;

/** A file of random bytes, hashed in parts as the CLI hashes it. */
async function bigFile(name: string, size = 40 * MiB): Promise<LocalFile & { bytes: Buffer }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lode-sdk-parts-'));
  const bytes = randomBytes(size);
  const localPath = path.join(dir, path.basename(name));
  await writeFile(localPath, bytes);
  return { path: name, localPath, bytes, digest: await hashFile(localPath, undefined, size, { multipartThreshold: THRESHOLD }) };
}

describe.each(['local', 's3'] as const)('large files in parts against the API (%s storage)', (storage) => {
  let stack: TestStack;
  let client: LodeClient;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage });
  });
  afterAll(async () => stack?.stop());
  beforeAll(async () => {
    const seeded = await stack.seed.project();
    client = new LodeClient({ url: stack.baseUrl, key: seeded.key, deviceId: seeded.deviceId });
  });

  it('uploads a file in parts and downloads it in ranges, byte for byte, counting both', async () => {
    const file = await bigFile('Cinematics/intro.mov');
    let parts = 0;
    const uploaded = await uploadFiles(client, [file], { multipartThreshold: THRESHOLD, onProgress: (p) => (parts += p.parts ?? 0) });
    expect(uploaded.failures).toEqual([]);
    expect(uploaded.done).toEqual([expect.objectContaining({ path: file.path, dedup: false, parts: { total: 3, uploaded: 3, resumed: 0 } })]);
    expect(parts).toBe(3);
    await commitFiles(
      client,
      { message: 'intro', fileVersions: uploaded.done.map((d) => ({ fileId: d.fileId, action: 'add', version: d.version })) },
      { idempotencyKey: randomUUID() },
    );

    const dir = await mkdtemp(path.join(tmpdir(), 'lode-sdk-ranges-'));
    const dest = path.join(dir, 'intro.mov');
    const downloaded = await downloadFiles(client, [{ path: file.path, dest }], { multipartThreshold: THRESHOLD });
    expect(downloaded.failures).toEqual([]);
    expect(downloaded.done).toEqual([expect.objectContaining({ parts: { total: 2, downloaded: 2, resumed: 0 } })]);
    expect((await readFile(dest)).equals(file.bytes)).toBe(true);
    expect((await readdir(dir)).filter(isPartialDownload)).toEqual([]);
  });

  it('resumes an interrupted upload: the same reservation again, only the missing parts PUT', async () => {
    const file = await bigFile('Cinematics/outro.mov');
    // An upload that stopped after its first part: initiated, part 1 stored, never confirmed.
    const [first] = (await client.initiateBatch([multipartEntry(file.path, file.digest as Required<LocalFile['digest']>)])) as MultipartForm[];
    const part1 = first.multipart.parts[0];
    await putFile(file.path, part1.uploadUrl, part1.requiredHeaders, file.localPath, { retry: client.transport.retry, range: { start: 0, end: 16 * MiB } });

    const uploaded = await uploadFiles(client, [file], { multipartThreshold: THRESHOLD });
    expect(uploaded.failures).toEqual([]);
    expect(uploaded.done).toEqual([expect.objectContaining({ fileId: first.fileId, version: first.version, parts: { total: 3, uploaded: 2, resumed: 1 } })]);
    await commitFiles(
      client,
      { message: 'outro', fileVersions: [{ fileId: first.fileId, action: 'add', version: first.version }] },
      { idempotencyKey: randomUUID() },
    );
    const dest = path.join(await mkdtemp(path.join(tmpdir(), 'lode-sdk-ranges-')), 'outro.mov');
    expect((await downloadFiles(client, [{ path: file.path, dest }])).failures).toEqual([]);
    expect(
      createHash('sha256')
        .update(await readFile(dest))
        .digest('hex'),
    ).toBe(file.digest.sha256);
  });

  it('asks the parts endpoint for fresh URLs when part URLs are refused 403', async () => {
    const file = await bigFile('Cinematics/credits.mov');
    const [form] = (await client.initiateBatch([multipartEntry(file.path, file.digest as Required<LocalFile['digest']>)])) as MultipartForm[];
    // URLs the store refuses, as it refuses expired ones.
    const spoilt: MultipartForm = {
      ...form,
      multipart: {
        ...form.multipart,
        parts: form.multipart.parts.map((p) => ({ ...p, uploadUrl: p.uploadUrl.replace(/(signature|Signature)=[^&]+/, '$1=00') })),
      },
    };
    const outcome = await putParts(client, file, spoilt, { retry: client.transport.retry });
    expect(outcome).toEqual({ total: 3, uploaded: 3, resumed: 0 });
    const fresh = await client.uploadParts(form.fileId, form.version);
    expect(fresh.multipart.parts).toEqual([]);
    expect(fresh.multipart.uploaded.map((p) => p.partNumber)).toEqual([1, 2, 3]);
    await expect(
      client.confirmUpload({ fileId: form.fileId, version: form.version, storageKey: form.storageKey, sha256: file.digest.sha256, size: file.digest.size }),
    ).resolves.toMatchObject({ confirmed: true });
  });
});
