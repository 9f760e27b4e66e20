import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import type { SeededProject } from '@lode/testkit';
import { workspace } from './helpers.ts';

/** GET /changes of a project: the reply's status and body. */
function changesOf(p: SeededProject, query: Record<string, string | number | undefined>) {
  const search = new URLSearchParams(Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])));
  return p.api.get(`/api/v1/projects/${p.projectId}/changes?${search.toString()}`);
}

/** Every page from `since`, following nextCursor: the rows and the last page's latestCommitSeq. */
async function allChanges(p: SeededProject, query: Record<string, string | number>) {
  const rows: unknown[] = [];
  let pages = 0;
  for (let cursor: string | undefined; ;) {
    const res = await changesOf(p, { ...query, ...(cursor ? { cursor } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    rows.push(...res.body.data);
    pages += 1;
    cursor = res.body.nextCursor ?? undefined;
    if (!cursor) return { rows, pages, latestCommitSeq: res.body.latestCommitSeq as number, generation: res.body.generation as string };
  }
}

describe('GET changes through the gateway', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
  });
  afterAll(async () => stack?.stop());

  it('lists the files whose tip changed after a commit, deletions included, as of the latest commit', async () => {
    const p = await stack.seed.project();
    const ws = workspace(p);
    const a1 = await ws.push('a.bin');
    const b1 = await ws.push('Dir/b.bin');
    const first = await ws.commit({ set: [a1, b1] });
    const a2 = await ws.push('a.bin');
    const second = await ws.commit({ set: [a2] });
    const third = await ws.commit({ remove: [b1.fileId] });

    const since = await allChanges(p, { since: first });
    expect(since).toMatchObject({ latestCommitSeq: third, generation: 'main' });
    expect(since.rows).toEqual([
      { path: 'a.bin', fileId: a2.fileId, status: 'live', version: a2.version, sha256: a2.sha256, size: a2.size, commitSeq: second },
      { path: 'Dir/b.bin', fileId: b1.fileId, status: 'deleted', version: null, sha256: null, size: null, commitSeq: third },
    ]);
    expect((await allChanges(p, { since: third })).rows).toEqual([]);
    // Read your writes: the commit just made is in the answer.
    const a3 = await ws.push('a.bin');
    const fourth = await ws.commit({ set: [a3] });
    expect(await allChanges(p, { since: third })).toMatchObject({ latestCommitSeq: fourth, rows: [{ path: 'a.bin', version: a3.version, commitSeq: fourth }] });
  });

  it('pages by cursor through every change, each row once', async () => {
    const p = await stack.seed.project();
    const ws = workspace(p);
    const files = await Promise.all(['x/1', 'x/2', 'x/3', 'y/4', 'y/5'].map((path) => ws.push(path)));
    await ws.commit({ set: files.slice(0, 2) });
    await ws.commit({ set: files.slice(2) });
    const paged = await allChanges(p, { since: 0, limit: 2 });
    expect(paged.pages).toBe(3);
    expect(paged.rows.map((row) => (row as { path: string }).path)).toEqual(['x/1', 'x/2', 'x/3', 'y/4', 'y/5']);
    // A cursor pages the listing it was made for only.
    const first = await changesOf(p, { since: 0, limit: 2 });
    expect((await changesOf(p, { since: 1, cursor: first.body.nextCursor })).body).toMatchObject({ code: 'validation_failed' });
  });

  it('refuses bad queries with 400 and lets no other project read the changes', async () => {
    const p = await stack.seed.project();
    const ws = workspace(p);
    await ws.commit({ set: [await ws.push('secret.bin')] });
    for (const query of [
      {},
      { since: -1 },
      { since: 'x' },
      { since: 0, limit: 0 },
      { since: 0, limit: 5001 },
      { since: 0, cursor: 'forged.mac' },
      { since: 0, branch: 'a..b' },
    ]) {
      const res = await changesOf(p, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    const other = await stack.seed.project();
    const res = await other.api.get(`/api/v1/projects/${p.projectId}/changes?since=0`);
    expect(res.status).toBe(404);
    expect(res.body.data).toBeUndefined();
    expect((await allChanges(other, { since: 0 })).rows).toEqual([]);
  });

  it('answers 410 changes_expired for a sequence beyond the server and for a branch created again', async () => {
    const p = await stack.seed.project();
    const ws = workspace(p);
    const base = `/api/v1/projects/${p.projectId}`;
    const seq = await ws.commit({ set: [await ws.push('a.bin')] });
    const beyond = await changesOf(p, { since: seq + 5 });
    expect(beyond.status).toBe(410);
    expect(beyond.body.code).toBe('changes_expired');

    expect((await p.api.post(`${base}/branches`, { name: 'feat' })).status).toBe(201);
    const { generation } = await allChanges(p, { since: seq, branch: 'feat' });
    expect(generation).not.toBe('main');
    expect((await allChanges(p, { since: seq, branch: 'feat', generation })).rows).toEqual([]);
    expect((await p.api.delete(`${base}/branches/feat`)).status).toBe(200);
    expect((await p.api.post(`${base}/branches`, { name: 'feat' })).status).toBe(201);
    const recreated = await changesOf(p, { since: seq, branch: 'feat', generation });
    expect(recreated.status).toBe(410);
    expect(recreated.body.code).toBe('changes_expired');

    // A cursor holds the generation of its first page, even when the client sent none.
    const files = await Promise.all(['b.bin', 'c.bin'].map((path) => ws.push(path)));
    await ws.commit({ set: files }, 'feat');
    const first = await changesOf(p, { since: seq, branch: 'feat', limit: 1 });
    expect(first.body.nextCursor).toEqual(expect.any(String));
    expect((await p.api.delete(`${base}/branches/feat`)).status).toBe(200);
    expect((await p.api.post(`${base}/branches`, { name: 'feat' })).status).toBe(201);
    const next = await changesOf(p, { since: seq, branch: 'feat', limit: 1, cursor: first.body.nextCursor });
    expect(next.status).toBe(410);
    expect(next.body.code).toBe('changes_expired');
  });
});
