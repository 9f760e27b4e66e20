import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { allPages, projectApi } from './branch-helpers.ts';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(['local', 'nats'] as const)('branches, the commit log and the project tree through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  const project = async () => {
    const p = await stack.seed.project();
    return { p, api: projectApi(p) };
  };

  describe('branches', () => {
    it('lists main before its first commit, with no head and no creator', async () => {
      const { p, api } = await project();
      const res = await p.api.get(`${api.base}/branches`);
      expect(res).toMatchObject({
        status: 200,
        body: { data: [{ name: 'main', headCommitId: null, headSequenceNum: null, forkedFrom: null, createdAt: null, createdBy: null }], nextCursor: null },
      });
      expect(api.expectStatus(await p.api.get(`${api.base}/commits`), 200)).toEqual({ data: [], nextCursor: null });
      expect(api.expectStatus(await p.api.get(`${api.base}/files`), 200)).toEqual({ data: [], nextCursor: null });
    });

    it("creates a branch from main's head and from another branch's, with its creator, and answers it", async () => {
      const { p, api } = await project();
      const a = await api.push('a.bin');
      const first = await api.commit([a]);
      const feature = await api.createBranch('feature');
      expect(feature).toEqual({
        name: 'feature',
        headCommitId: first.id,
        headSequenceNum: first.sequenceNum,
        forkedFrom: { branch: 'main', sequenceNum: first.sequenceNum },
        createdAt: expect.stringMatching(ISO_MS),
        createdBy: { userId: p.userId, userName: expect.any(String) },
      });
      const onFeature = await api.commit([await api.push('a.bin')], { branch: 'feature' });
      const nested = await api.createBranch('feature/nested', 'feature');
      expect(nested).toMatchObject({
        headCommitId: onFeature.id,
        headSequenceNum: onFeature.sequenceNum,
        forkedFrom: { branch: 'feature', sequenceNum: onFeature.sequenceNum },
      });
      const listed = api.expectStatus(await p.api.get(`${api.base}/branches`), 200);
      expect(listed.data.map((b: { name: string }) => b.name)).toEqual(['main', 'feature', 'feature/nested']);
      expect(listed.data[0]).toMatchObject({
        name: 'main',
        headCommitId: first.id,
        forkedFrom: null,
        createdBy: null,
        createdAt: expect.stringMatching(ISO_MS),
      });
    });

    it('refuses a taken name (409 branch_exists), a bad name (400 naming it) and an unknown source (404)', async () => {
      const { p, api } = await project();
      await api.createBranch('taken');
      for (const name of ['taken', 'main']) {
        expect(await p.api.post(`${api.base}/branches`, { name })).toMatchObject({ status: 409, body: { code: 'branch_exists' } });
      }
      for (const body of [{ name: '../x' }, { name: 'a..b' }, {}, { name: 'ok', from: 'bad name' }]) {
        const res = await p.api.post(`${api.base}/branches`, body);
        expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
        expect(res.body.message).toMatch(/name|from/);
      }
      expect(await p.api.post(`${api.base}/branches`, { name: 'x', from: 'nowhere' })).toMatchObject({ status: 404, body: { code: 'not_found' } });
    });

    it('lists main first, then names in byte order, page by page with signed cursors bound to the project', async () => {
      const { p, api } = await project();
      const names = ['b', 'B', 'a/x', 'a-x', 'a0', 'Zed', 'main-2'];
      for (const name of names) await api.createBranch(name);
      const all = await allPages<{ name: string }>(p, `${api.base}/branches`, 1);
      expect(all.map((b) => b.name)).toEqual(['main', 'B', 'Zed', 'a-x', 'a/x', 'a0', 'b', 'main-2']);
      const first = api.expectStatus(await p.api.get(`${api.base}/branches?limit=3`), 200);
      const tampered = `${first.nextCursor.slice(0, -2)}xx`;
      expect(await p.api.get(`${api.base}/branches?cursor=${tampered}`)).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
      const other = await project();
      expect(await other.p.api.get(`${other.api.base}/branches?cursor=${first.nextCursor}`)).toMatchObject({ status: 400 });
      expect(await p.api.get(`${api.base}/branches?limit=201`)).toMatchObject({ status: 400 });
    });

    it('deletes a branch (its commits stay where other lineages hold them), protects main, and lets the name be reused', async () => {
      const { p, api } = await project();
      const a = await api.push('a.bin');
      await api.commit([a]);
      await api.createBranch('old');
      const onOld = await api.commit([await api.push('a.bin')], { branch: 'old', message: 'on old' });
      await api.createBranch('child', 'old');
      expect(await p.api.delete(`${api.base}/branches/main`)).toMatchObject({ status: 409, body: { code: 'branch_protected' } });
      expect(await p.api.delete(`${api.base}/branches/nowhere`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect(await p.api.delete(`${api.base}/branches/${encodeURIComponent('a..b')}`)).toMatchObject({ status: 400 });
      expect(await p.api.delete(`${api.base}/branches/old`)).toMatchObject({ status: 200, body: { name: 'old', deleted: true } });
      expect(await p.api.delete(`${api.base}/branches/old`)).toMatchObject({ status: 404 });
      expect(await p.api.get(`${api.base}/commits?branch=old`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect(await p.api.get(`${api.base}/files?branch=old`)).toMatchObject({ status: 404 });
      // The child still holds the deleted branch's commit, and the commit itself is still there.
      expect((await api.log('child')).data.map((c: { message: string }) => c.message)).toEqual(['on old', 'change']);
      expect(api.expectStatus(await p.api.get(`${api.base}/commits/${onOld.id}`), 200)).toMatchObject({ branch: 'old', message: 'on old' });
      // A new branch of the same name starts from main: the old one's commits are not its.
      const reused = await api.createBranch('old');
      expect(reused).toMatchObject({ forkedFrom: { branch: 'main' } });
      expect((await api.log('old')).data.map((c: { message: string }) => c.message)).toEqual(['change']);
      expect(await api.tree('old')).toEqual([{ path: 'a.bin', version: 1 }]);
    });

    it('deletes a branch whose name needs URL-encoding', async () => {
      const { p, api } = await project();
      await api.createBranch('feature/x');
      expect(await p.api.delete(`${api.base}/branches/${encodeURIComponent('feature/x')}`)).toMatchObject({
        status: 200,
        body: { name: 'feature/x', deleted: true },
      });
    });

    it('still creates a branch on its first commit, from main, as before, with the committer as its creator', async () => {
      const { p, api } = await project();
      const a = await api.push('a.bin');
      const first = await api.commit([a]);
      await api.commit([await api.push('b.bin')], { branch: 'implicit' });
      const listed = api.expectStatus(await p.api.get(`${api.base}/branches`), 200).data;
      expect(listed[1]).toMatchObject({ name: 'implicit', forkedFrom: { branch: 'main', sequenceNum: first.sequenceNum }, createdBy: { userId: p.userId } });
      expect(listed[0]).toMatchObject({ name: 'main', createdBy: null });
      expect((await api.log('implicit')).data.map((c: { sequenceNum: number }) => c.sequenceNum)).toEqual([first.sequenceNum + 1, first.sequenceNum]);
      expect(await api.tree('implicit')).toEqual([
        { path: 'a.bin', version: 1 },
        { path: 'b.bin', version: 1 },
      ]);
    });

    it('creates main once when its first commits race each other and a branch forked from it, numbering every commit', async () => {
      const { p, api } = await project();
      const files = await Promise.all(['a.bin', 'b.bin', 'c.bin', 'd.bin'].map((path) => api.push(path)));
      const [branch, ...commits] = await Promise.all([api.createBranch('racer'), ...files.map((f) => api.commit([f]))]);
      expect(commits.map((c) => c.sequenceNum).toSorted()).toEqual([1, 2, 3, 4]);
      const listed = api.expectStatus(await p.api.get(`${api.base}/branches`), 200).data;
      expect(listed.map((b: { name: string }) => b.name)).toEqual(['main', 'racer']);
      const last = commits.find((c) => c.sequenceNum === 4);
      expect(listed[0]).toMatchObject({
        headCommitId: last?.id,
        headSequenceNum: 4,
        forkedFrom: null,
        createdBy: null,
        createdAt: expect.stringMatching(ISO_MS),
      });
      // The fork took main's tree as it stood when the branch was created among the commits.
      const forkedAt: number = branch.forkedFrom.sequenceNum ?? 0;
      const forked = files.filter((_, i) => commits[i].sequenceNum <= forkedAt).map((f) => ({ path: f.path, version: 1 }));
      expect(await api.tree('racer')).toEqual(forked);
    });
  });

  describe('the commit log', () => {
    it("answers a branch's lineage newest first: its own commits and its parents' up to each fork", async () => {
      const { p, api } = await project();
      const m1 = await api.commit([await api.push('a.bin')], { message: 'm1' });
      await api.createBranch('f');
      const m2 = await api.commit([await api.push('b.bin')], { message: 'm2' });
      const f1 = await api.commit([await api.push('c.bin')], { branch: 'f', message: 'f1' });
      await api.createBranch('g', 'f');
      await api.commit([await api.push('d.bin')], { branch: 'f', message: 'f2' });
      const g1 = await api.commit([await api.push('e.bin')], { branch: 'g', message: 'g1' });
      expect((await api.log('g')).data.map((c: { message: string }) => c.message)).toEqual(['g1', 'f1', 'm1']);
      expect((await api.log('main')).data.map((c: { message: string }) => c.message)).toEqual(['m2', 'm1']);
      const [newest] = (await api.log('g')).data;
      expect(newest).toEqual({
        id: g1.id,
        sequenceNum: g1.sequenceNum,
        message: 'g1',
        fileCount: 1,
        branch: 'g',
        kind: 'commit',
        authorId: p.userId,
        authorName: expect.any(String),
        createdAt: expect.stringMatching(ISO_MS),
      });
      expect(m2.sequenceNum).toBeGreaterThan(m1.sequenceNum);
      expect(f1.sequenceNum).toBeGreaterThan(m2.sequenceNum);
      // A page at a time, with a cursor bound to the branch.
      const paged = await allPages<{ message: string }>(p, `${api.base}/commits?branch=g`, 1);
      expect(paged.map((c) => c.message)).toEqual(['g1', 'f1', 'm1']);
      const page = api.expectStatus(await p.api.get(`${api.base}/commits?branch=g&limit=1`), 200);
      expect(await p.api.get(`${api.base}/commits?branch=f&cursor=${page.nextCursor}`)).toMatchObject({ status: 400 });
    });

    it('refuses an unknown branch (404) and a bad query (400 naming it)', async () => {
      const { p, api } = await project();
      expect(await p.api.get(`${api.base}/commits?branch=nowhere`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
      for (const query of ['branch=..', 'limit=0', 'limit=x', 'cursor=abc', 'branch=a&branch=b']) {
        const res = await p.api.get(`${api.base}/commits?${query}`);
        expect(res, query).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
      }
    });

    it("answers one commit and its files in path order (byte order), deletions without a version; another project's is 404", async () => {
      const { p, api } = await project();
      const files = [];
      for (const path of ['b.bin', 'C.bin', 'a.bin', 'a/b.bin', 'a-b.bin']) files.push(await api.push(path));
      const first = await api.commit(files);
      const changed = await api.commit([await api.push('b.bin')], { deletes: [files[2].fileId], message: 'second' });
      expect(api.expectStatus(await p.api.get(`${api.base}/commits/${changed.id}`), 200)).toMatchObject({
        id: changed.id,
        message: 'second',
        fileCount: 2,
        kind: 'commit',
      });
      const listed = await allPages<{ path: string }>(p, `${api.base}/commits/${first.id}/files`, 2);
      expect(listed.map((f) => f.path)).toEqual(['C.bin', 'a-b.bin', 'a.bin', 'a/b.bin', 'b.bin']);
      expect(listed[0]).toEqual({ fileId: files[1].fileId, path: 'C.bin', action: 'add', version: 1, sha256: files[1].sha256, size: files[1].size });
      const second = api.expectStatus(await p.api.get(`${api.base}/commits/${changed.id}/files`), 200);
      expect(second.data).toEqual([
        { fileId: files[2].fileId, path: 'a.bin', action: 'delete', version: null, sha256: null, size: null },
        { fileId: files[0].fileId, path: 'b.bin', action: 'modify', version: 2, sha256: expect.any(String), size: 24 },
      ]);
      const page = api.expectStatus(await p.api.get(`${api.base}/commits/${first.id}/files?limit=1`), 200);
      expect(await p.api.get(`${api.base}/commits/${changed.id}/files?cursor=${page.nextCursor}`)).toMatchObject({ status: 400 });

      const other = await project();
      for (const path of [`/commits/${first.id}`, `/commits/${first.id}/files`, `/commits/${randomUUID()}`, `/commits/${randomUUID()}/files`]) {
        const res = await other.p.api.get(`${other.api.base}${path}`);
        expect(res, path).toMatchObject({ status: 404, body: { code: 'not_found' } });
        expect(JSON.stringify(res.body)).not.toContain('a.bin');
      }
      expect(await p.api.get(`${api.base}/commits/not-a-uuid`)).toMatchObject({ status: 400, body: { message: expect.stringContaining('commitId') } });
    });
  });

  describe('the project tree', () => {
    it("lists a branch's live files in path order with their commit, under a folder or all, page by page", async () => {
      const { p, api } = await project();
      const files = [];
      for (const path of ['Levels/b.umap', 'Levels/a.umap', 'Levels/sub/c.umap', 'LevelsX/d.umap', 'levels/e.umap', 'Levels.txt', 'gone.bin'])
        files.push(await api.push(path));
      const first = await api.commit(files);
      const second = await api.commit([await api.push('Levels/a.umap')], { deletes: [files[6].fileId] });
      expect((await api.tree()).map((f) => f.path)).toEqual([
        'Levels.txt',
        'Levels/a.umap',
        'Levels/b.umap',
        'Levels/sub/c.umap',
        'LevelsX/d.umap',
        'levels/e.umap',
      ]);
      for (const prefix of ['Levels/', 'Levels']) {
        expect(await api.tree('main', prefix), prefix).toEqual([
          { path: 'Levels/a.umap', version: 2 },
          { path: 'Levels/b.umap', version: 1 },
          { path: 'Levels/sub/c.umap', version: 1 },
        ]);
      }
      expect(await api.tree('main', 'Levels/sub/')).toEqual([{ path: 'Levels/sub/c.umap', version: 1 }]);
      expect(await api.tree('main', 'Nothing/')).toEqual([]);
      const page = api.expectStatus(await p.api.get(`${api.base}/files?prefix=Levels/&limit=1`), 200);
      expect(page.data).toEqual([
        {
          fileId: files[1].fileId,
          path: 'Levels/a.umap',
          version: 2,
          sha256: expect.any(String),
          size: 24,
          commitSeq: second.sequenceNum,
          updatedAt: expect.stringMatching(ISO_MS),
        },
      ]);
      const commitTime = api.expectStatus(await p.api.get(`${api.base}/commits/${second.id}`), 200).createdAt;
      expect(page.data[0].updatedAt).toBe(commitTime);
      expect(api.expectStatus(await p.api.get(`${api.base}/files?prefix=Levels/sub/`), 200).data[0].commitSeq).toBe(first.sequenceNum);
      // A cursor is bound to its branch and folder.
      expect(await p.api.get(`${api.base}/files?prefix=LevelsX/&cursor=${page.nextCursor}`)).toMatchObject({ status: 400 });
    });

    it('answers the fork point for a branch forked from an older head or another branch, before its first commit', async () => {
      const { api } = await project();
      const a = await api.push('a.bin');
      await api.commit([a]);
      await api.createBranch('early');
      await api.commit([await api.push('a.bin'), await api.push('b.bin')]);
      await api.commit([await api.push('c.bin')], { branch: 'early' });
      await api.createBranch('late', 'early');
      await api.commit([await api.push('d.bin')], { branch: 'early' });
      expect(await api.tree('late')).toEqual([
        { path: 'a.bin', version: 1 },
        { path: 'c.bin', version: 1 },
      ]);
      expect(await api.tree('main')).toEqual([
        { path: 'a.bin', version: 2 },
        { path: 'b.bin', version: 1 },
      ]);
    });

    it('refuses an unknown branch (404) and a prefix that is no folder path (400 naming it)', async () => {
      const { p, api } = await project();
      expect(await p.api.get(`${api.base}/files?branch=nowhere`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
      for (const prefix of ['/abs/', '../x/', 'a//b/', 'a\\b']) {
        const res = await p.api.get(`${api.base}/files?prefix=${encodeURIComponent(prefix)}`);
        expect(res, prefix).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
        expect(res.body.message).toContain('prefix');
      }
    });
  });

  it("knows nothing of another project's branches, commits and paths on any of these routes", async () => {
    const mine = await project();
    const theirs = await project();
    const secret = await theirs.api.push('secret/plan.bin');
    const theirCommit = await theirs.api.commit([secret]);
    await theirs.api.createBranch('their-branch');
    const { p, api } = mine;
    const unknown: [string, () => Promise<{ status: number; body: unknown }>][] = [
      ['log of their branch', () => p.api.get(`${api.base}/commits?branch=their-branch`)],
      ['tree of their branch', () => p.api.get(`${api.base}/files?branch=their-branch`)],
      ['their commit', () => p.api.get(`${api.base}/commits/${theirCommit.id}`)],
      ['their commit files', () => p.api.get(`${api.base}/commits/${theirCommit.id}/files`)],
      ['fork from their branch', () => p.api.post(`${api.base}/branches`, { name: 'copy', from: 'their-branch' })],
      ['delete their branch', () => p.api.delete(`${api.base}/branches/their-branch`)],
      ['merge their branch', () => p.api.post(`${api.base}/branches/their-branch/merge`, {})],
    ];
    for (const [what, call] of unknown) {
      const res = await call();
      expect(res, what).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect(JSON.stringify(res.body), what).not.toMatch(/secret|their-branch/);
    }
    // Their project's id in the path with my key: 404 before anything is read.
    for (const path of ['/branches', '/commits', `/commits/${theirCommit.id}`, `/commits/${theirCommit.id}/files`, '/files']) {
      expect(await p.api.get(`${theirs.api.base}${path}`), path).toMatchObject({ status: 404, body: { code: 'not_found' } });
    }
    expect(await p.api.post(`${theirs.api.base}/branches`, { name: 'x' })).toMatchObject({ status: 404 });
    expect(await p.api.delete(`${theirs.api.base}/branches/their-branch`)).toMatchObject({ status: 404 });
    expect(await p.api.post(`${theirs.api.base}/branches/their-branch/merge`, {})).toMatchObject({ status: 404 });
    // My listings hold none of theirs; their branch is still there.
    expect((await api.expectStatus(await p.api.get(`${api.base}/branches`), 200)).data.map((b: { name: string }) => b.name)).toEqual(['main']);
    expect(await api.tree()).toEqual([]);
    expect((await theirs.api.log('their-branch')).data).toHaveLength(1);
  });

  it('counts branch writes against the write rate limit, reads not', async () => {
    const p: SeededProject = await stack.seed.project({ writeRateLimit: { perSecond: 0.001, burst: 2 } });
    const base = `/api/v1/projects/${p.projectId}`;
    expect((await p.api.post(`${base}/branches`, { name: 'one' })).status).toBe(201);
    expect((await p.api.delete(`${base}/branches/one`)).status).toBe(200);
    expect(await p.api.post(`${base}/branches`, { name: 'two' })).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
    expect(await p.api.post(`${base}/branches/two/merge`, {})).toMatchObject({ status: 429 });
    expect((await p.api.get(`${base}/branches`)).status).toBe(200);
  });
});
