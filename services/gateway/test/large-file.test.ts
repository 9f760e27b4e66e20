import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peakRssBytes, RetryingClient, type SeededProject } from '@lode/testkit';
import { startProcessStack, type ProcessStack } from '@lode/system/testing';

const MiB = 1024 * 1024;
const CHUNK = MiB;

/** Deterministic content, generated chunk by chunk so the test itself never holds a file either. */
function chunkAt(index: number): Buffer {
  const chunk = Buffer.alloc(CHUNK);
  chunk.writeUInt32BE(index, 0);
  return chunk.fill(index % 251, 4);
}

function streamContent(size: number): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (index * CHUNK >= size) return controller.close();
      controller.enqueue(chunkAt(index++));
    },
  });
}

function describeLargeContent(size: number) {
  const md5 = createHash('md5');
  const sha = createHash('sha256');
  for (let i = 0; i * CHUNK < size; i++) {
    const chunk = chunkAt(i);
    md5.update(chunk);
    sha.update(chunk);
  }
  return { size, contentMd5: md5.digest('base64'), sha256: sha.digest('hex') };
}

describe.each(['local', 's3'] as const)('large files through the %s driver: memory stays flat', (storageDriver) => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack({ storage: storageDriver });
  });
  afterAll(async () => stack?.stop());

  const peaks = async () => ({
    gateway: await peakRssBytes(stack.processes.gateway.child.pid!),
    upload: await peakRssBytes(stack.processes.upload.child.pid!),
  });

  async function push(p: SeededProject, path: string, size: number): Promise<void> {
    const content = describeLargeContent(size);
    const base = `/api/v1/projects/${p.projectId}/files/upload`;
    const initiated = await p.api.post(`${base}/initiate`, { path, ...content });
    expect(initiated.status).toBe(200);
    const put = await fetch(initiated.body.uploadUrl, {
      method: 'PUT',
      headers: initiated.body.requiredHeaders,
      body: streamContent(size),
      duplex: 'half',
    });
    expect(put.status).toBe(200);
    // Confirm reads the object back on S3, which a loaded store may do slower than the gateway waits:
    // a client retries the 504, as the SDK does, and its retry joins the read or finds the version.
    const client = new RetryingClient([stack.baseUrl], { authorization: `Bearer ${p.key}`, 'x-device-id': p.deviceId }, { timeoutMs: 10 * 60_000 });
    const confirmed = await client.post(`${base}/confirm`, { fileId: initiated.body.fileId, version: 1, storageKey: initiated.body.storageKey, ...content });
    expect(confirmed).toMatchObject({ status: 200, body: { confirmed: true, version: 1 } });
  }

  it('moves a 256 MB file after a 64 MB one with no growth of peak memory in the gateway or the upload service', async () => {
    const p = await stack.seed.project();
    // The first file lets buffers churn up to the garbage collector's steady slack, which does not
    // grow with the file's size; a process that held the file would then grow by
    // the second file's size, one that streams by next to nothing.
    await push(p, 'Cinematics/teaser.mov', 64 * MiB);
    const warm = await peaks();
    await push(p, 'Cinematics/intro.mov', 256 * MiB);
    const after = await peaks();
    // A quarter of the second file: far below holding it, above the slack a collector starved of CPU
    // leaves on a loaded machine.
    expect(after.gateway - warm.gateway).toBeLessThan(64 * MiB);
    expect(after.upload - warm.upload).toBeLessThan(64 * MiB);
  });
});
