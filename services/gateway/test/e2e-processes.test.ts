import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushFile } from '@lode/testkit';
import { startProcessStack, type ProcessStack } from '@lode/system/testing';

describe('every service as a separate OS process on NATS', () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack({ storage: 'local' });
  });
  afterAll(async () => stack?.stop());

  it('pushes files over HTTP end to end, with dedup and a new version', async () => {
    const p = await stack.seed.project();
    expect((await p.api.post('/api/v1/auth/validate-key')).body).toMatchObject({ valid: true, projectId: p.projectId });
    const bytes = randomBytes(256 * 1024);
    expect(await pushFile(p.api, p.projectId, 'Maps/level01.umap', bytes)).toMatchObject({ version: 1, dedup: false });
    expect(await pushFile(p.api, p.projectId, 'Maps/level01-backup.umap', bytes)).toMatchObject({ version: 1, dedup: true });
    expect((await pushFile(p.api, p.projectId, 'Maps/level01.umap', randomBytes(100))).version).toBe(2);
  });

  it('shuts every process down cleanly on SIGTERM', async () => {
    expect(await stack.stopProcesses()).toEqual(stack.all.map(() => 0));
  });
});
