import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { liveRow, randomSha, workspace } from './helpers.ts';

describe.each(['local', 'nats'] as const)('sync of branches created, deleted and merged through the API (%s bus)', (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  const project = async () => {
    const p = await stack.seed.project();
    const ws = workspace(p);
    const base = `/api/v1/projects/${p.projectId}`;
    const expectOk = async (res: Promise<{ status: number; body: unknown }>, status: number) => {
      const answer = await res;
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      return answer.body as Record<string, unknown>;
    };
    return {
      p,
      ws,
      createBranch: (name: string, from?: string) => expectOk(p.api.post(`${base}/branches`, { name, ...(from ? { from } : {}) }), 201),
      deleteBranch: (name: string) => expectOk(p.api.delete(`${base}/branches/${encodeURIComponent(name)}`), 200),
      merge: (name: string, body: Record<string, unknown> = {}) => expectOk(p.api.post(`${base}/branches/${encodeURIComponent(name)}/merge`, body), 201),
      /** Every live remote file of the branch, as a client with nothing local gets them. */
      listing: async (branch?: string) => (await expectOk(ws.sync({ files: [], includeRemoteOnly: true, ...(branch ? { branch } : {}) }), 200)).files,
    };
  };
  const named = (p: SeededProject, branch: string) => ({ branch, projectId: p.projectId });

  it("answers a branch created from an older main head with the fork point's state, before its first commit", async () => {
    const { p, ws, createBranch, listing } = await project();
    const a1 = await ws.push('a.bin');
    const forkedAt = await ws.commit({ set: [a1] });
    await createBranch('early');
    const a2 = await ws.push('a.bin');
    const b1 = await ws.push('b.bin');
    await ws.commit({ set: [a2, b1] });
    const onEarly = { branch: named(p, 'early').branch };
    expect(await listing('early')).toEqual([liveRow('a.bin', 'missing', a1, forkedAt)]);
    expect(await ws.row({ path: 'a.bin', sha256: a1.sha256 }, onEarly)).toEqual(liveRow('a.bin', 'up_to_date', a1, forkedAt));
    // Main's later content is not on the branch's lineage: a client holding it changed the file.
    expect(await ws.status({ path: 'a.bin', sha256: a2.sha256 }, onEarly)).toBe('modified');
    expect(await ws.status({ path: 'b.bin', sha256: b1.sha256 }, onEarly)).toBe('local_only');
  });

  it("answers a branch forked from another branch with that branch's state at the fork, and its lineage's contents", async () => {
    const { ws, createBranch, listing } = await project();
    const a1 = await ws.push('a.bin');
    await ws.commit({ set: [a1] });
    await createBranch('feature');
    const a2 = await ws.push('a.bin');
    const onFeature = await ws.commit({ set: [a2] }, 'feature');
    await createBranch('nested', 'feature');
    const a3 = await ws.push('a.bin');
    await ws.commit({ set: [a3] }, 'feature');
    expect(await listing('nested')).toEqual([liveRow('a.bin', 'missing', a2, onFeature)]);
    // Version 1 is on nested's lineage (main's, up to feature's fork): outdated, not modified.
    expect(await ws.status({ path: 'a.bin', sha256: a1.sha256 }, { branch: 'nested' })).toBe('outdated');
    expect(await ws.status({ path: 'a.bin', sha256: a3.sha256 }, { branch: 'nested' })).toBe('modified');
  });

  it('reads its writes: a commit right after a branch is created, and a sync right after that', async () => {
    const { ws, createBranch, listing } = await project();
    const a1 = await ws.push('a.bin');
    await ws.commit({ set: [a1] });
    for (let i = 0; i < 5; i++) {
      const name = `quick-${i}`;
      await createBranch(name);
      const b = await ws.push(`b-${i}.bin`);
      const seq = await ws.commit({ set: [b] }, name);
      const rows = await listing(name);
      expect(rows, name).toHaveLength(2);
      expect(rows).toContainEqual(liveRow(`b-${i}.bin`, 'missing', b, seq));
    }
  });

  it('reads a deleted branch as main, and a branch of a reused name from where it was forked again', async () => {
    const { ws, createBranch, deleteBranch, listing } = await project();
    const a1 = await ws.push('a.bin');
    await ws.commit({ set: [a1] });
    await createBranch('topic');
    const a2 = await ws.push('a.bin');
    await ws.commit({ set: [a2] }, 'topic');
    await deleteBranch('topic');
    expect(await listing('topic')).toEqual(await listing());
    await createBranch('topic');
    expect(await listing('topic')).toEqual(await listing());
    // The deleted branch's version is no content of the new branch's lineage.
    expect(await ws.status({ path: 'a.bin', sha256: a2.sha256 }, { branch: 'topic' })).toBe('modified');
  });

  it('reports a merge into main as ordinary changes on main', async () => {
    const { ws, createBranch, merge, listing } = await project();
    const [a1, b1] = [await ws.push('a.bin'), await ws.push('b.bin')];
    await ws.commit({ set: [a1, b1] });
    await createBranch('feature');
    const a2 = await ws.push('a.bin');
    const c1 = await ws.push('c.bin');
    await ws.commit({ set: [a2, c1], remove: [b1.fileId] }, 'feature');
    const merged = (await merge('feature')).sequenceNum as number;
    expect(await listing()).toEqual([liveRow('a.bin', 'missing', a2, merged), liveRow('c.bin', 'missing', c1, merged)]);
    expect(await ws.row({ path: 'a.bin', sha256: a1.sha256 })).toEqual(liveRow('a.bin', 'outdated', a2, merged));
    expect(await ws.row({ path: 'b.bin', sha256: b1.sha256 })).toMatchObject({ status: 'deleted_remote', remoteCommitSeq: merged });
    expect(await ws.status({ path: 'a.bin', sha256: randomSha(), baseVersion: 1 })).toBe('conflict');
  });
});
