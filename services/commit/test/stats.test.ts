import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { projectApi } from './branch-helpers.ts';

describe.each(['local', 'nats'] as const)("a project's figures through the gateway (%s bus)", (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  const project = async () => {
    const p = await stack.seed.project();
    const api = projectApi(p);
    const stats = async (query = '') => api.expectStatus(await p.api.get(`${api.base}/stats${query}`), 200);
    return { p, api, stats };
  };

  it('answers zeros before the first commit, for main', async () => {
    const { stats } = await project();
    expect(await stats()).toEqual({ branch: 'main', fileCount: 0, totalSize: 0, versionCount: 0, latestSequence: 0 });
  });

  it("counts a branch's live files and bytes at any depth, the project's versions on every branch and its last commit", async () => {
    const { api, stats } = await project();
    const [root, deep, gone] = [
      await api.push('root.bin', randomBytes(10)),
      await api.push('a/b/deep.bin', randomBytes(20)),
      await api.push('a/gone.bin', randomBytes(5)),
    ];
    await api.commit([root, deep, gone]);
    const edited = await api.push('a/b/deep.bin', randomBytes(7));
    await api.commit([edited], { deletes: [gone.fileId] });
    expect(await stats()).toEqual({ branch: 'main', fileCount: 2, totalSize: 17, versionCount: 4, latestSequence: 2 });

    await api.createBranch('feature');
    const extra = await api.push('b/extra.bin', randomBytes(3));
    const last = await api.commit([extra], { branch: 'feature' });
    expect(await stats('?branch=feature')).toEqual({ branch: 'feature', fileCount: 3, totalSize: 20, versionCount: 5, latestSequence: last.sequenceNum });
    // Main's files stay main's; the versions and the last number are the project's.
    expect(await stats()).toEqual({ branch: 'main', fileCount: 2, totalSize: 17, versionCount: 5, latestSequence: last.sequenceNum });
  });

  it("refuses a branch that does not exist (404) and a malformed name (400), and shows nothing of another project's", async () => {
    const { p, api, stats } = await project();
    const other = await project();
    await other.api.commit([await other.api.push('theirs.bin', randomBytes(9))]);
    expect((await p.api.get(`${api.base}/stats?branch=nope`)).status).toBe(404);
    expect((await p.api.get(`${api.base}/stats?branch=..`)).status).toBe(400);
    expect((await p.api.get(`/api/v1/projects/${other.p.projectId}/stats`)).status).toBe(404);
    expect(await stats()).toEqual({ branch: 'main', fileCount: 0, totalSize: 0, versionCount: 0, latestSequence: 0 });
  });
});
