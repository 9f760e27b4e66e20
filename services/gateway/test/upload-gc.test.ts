import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeContent, pushFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

const DAY = 24 * 3600 * 1000;

describe.each(['local', 's3'] as const)('garbage collection of never-confirmed uploads (%s storage)', (storageDriver) => {
  let stack: TestStack;
  let p: SeededProject;
  const url = (op: string) => `/api/v1/projects/${p.projectId}/files/upload/${op}`;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: storageDriver });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());

  it('removes expired reservations and their objects, and never anything confirmed', async () => {
    const keptBytes = randomBytes(100);
    const kept = await pushFile(p.api, p.projectId, 'kept.bin', keptBytes);

    // Uploaded but never confirmed.
    const abandonedBytes = randomBytes(100);
    const abandoned = await p.api.post(url('initiate'), { path: 'abandoned.bin', ...describeContent(abandonedBytes) });
    await fetch(abandoned.body.uploadUrl, { method: 'PUT', headers: abandoned.body.requiredHeaders, body: abandonedBytes });
    expect(await stack.storage.head(abandoned.body.storageKey)).not.toBeNull();
    // A dedup reservation of the kept content, never confirmed: its row goes, the shared blob stays.
    const dedup = await p.api.post(url('initiate'), { path: 'copy.bin', ...describeContent(keptBytes) });
    expect(dedup.body.dedup).toBe(true);

    expect(await stack.collectReservations(Date.now())).toBe(0); // nothing has expired yet
    const removed = await Promise.all([stack.collectReservations(Date.now() + DAY), stack.collectReservations(Date.now() + DAY)]);
    expect(removed.reduce((a, b) => a + b, 0)).toBe(2); // two replicas never collect the same row twice

    expect(await stack.storage.head(abandoned.body.storageKey)).toBeNull();
    const late = await p.api.post(url('confirm'), {
      fileId: abandoned.body.fileId,
      version: abandoned.body.version,
      storageKey: abandoned.body.storageKey,
      ...describeContent(abandonedBytes),
    });
    expect(late.status).toBe(404);

    // The confirmed content is still there and still deduplicates.
    const again = await pushFile(p.api, p.projectId, 'copy.bin', keptBytes);
    expect(again).toMatchObject({ dedup: true, version: 1 });
    expect(kept.version).toBe(1);
  });
});
