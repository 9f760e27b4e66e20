import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commit } from '@lode/contracts';
import type { SeededProject } from '@lode/testkit';
import { seedConfirmedVersions, startTestStack, type TestStack } from '@lode/system/testing';
import { projectApi } from './branch-helpers.ts';

describe.each(['local', 'nats'] as const)('merging branches through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  const project = async () => {
    const p = await stack.seed.project();
    return { p, api: projectApi(p) };
  };
  const merge = (p: SeededProject, source: string, body: Record<string, unknown> = {}) =>
    p.api.post(`/api/v1/projects/${p.projectId}/branches/${encodeURIComponent(source)}/merge`, body);

  it("brings over what changed on the source only, as one merge commit on the target, on main's history", async () => {
    const { p, api } = await project();
    const [a, b, c, d] = [await api.push('a.bin'), await api.push('b.bin'), await api.push('c.bin'), await api.push('d.bin')];
    await api.commit([a, b, c, d]);
    await api.createBranch('feature');
    const a2 = await api.push('a.bin');
    const e = await api.push('e.bin');
    await api.commit([a2, e], { branch: 'feature', deletes: [b.fileId] });
    // Main changes another file meanwhile: it stays as main has it.
    const c2 = await api.push('c.bin');
    await api.commit([c2]);
    const res = await merge(p, 'feature');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      sequenceNum: expect.any(Number),
      message: 'Merge feature into main',
      fileCount: 3,
      branch: 'main',
      kind: 'merge',
    });
    expect(await api.tree()).toEqual([
      { path: 'a.bin', version: 2 },
      { path: 'c.bin', version: 2 },
      { path: 'd.bin', version: 1 },
      { path: 'e.bin', version: 1 },
    ]);
    const [newest] = (await api.log()).data;
    expect(newest).toMatchObject({ id: res.body.id, kind: 'merge', branch: 'main', authorId: p.userId });
    const files = api.expectStatus(await p.api.get(`${api.base}/commits/${res.body.id}/files`), 200);
    expect(files.data.map((f: { path: string; action: string; version: number | null }) => [f.path, f.action, f.version])).toEqual([
      ['a.bin', 'modify', 2],
      ['b.bin', 'delete', null],
      ['e.bin', 'add', 1],
    ]);
    // The file's history lists the merged version: it is on main's lineage now.
    const versions = api.expectStatus(await p.api.get(`${api.base}/files/${a.fileId}/versions`), 200);
    expect(versions.data.map((v: { version: number; commitId: string }) => [v.version, v.commitId])).toEqual([
      [2, res.body.id],
      [1, expect.any(String)],
    ]);
    // Merged once, there is nothing left to bring: a retried merge answers 422, not a second commit.
    expect(await merge(p, 'feature')).toMatchObject({ status: 422, body: { code: 'nothing_to_merge' } });
  });

  it('merges into another branch, with the message asked', async () => {
    const { p, api } = await project();
    await api.commit([await api.push('a.bin')]);
    await api.createBranch('feature');
    await api.commit([await api.push('b.bin')]);
    const res = await merge(p, 'main', { into: 'feature', message: 'Catch up with main' });
    expect(res).toMatchObject({ status: 201, body: { branch: 'feature', message: 'Catch up with main', fileCount: 1, kind: 'merge' } });
    expect(await api.tree('feature')).toEqual([
      { path: 'a.bin', version: 1 },
      { path: 'b.bin', version: 1 },
    ]);
  });

  it('answers 409 merge_conflict naming every file changed on both sides, with the three versions, and commits nothing', async () => {
    const { p, api } = await project();
    const [a, b, c, same] = [await api.push('a.bin'), await api.push('b.bin'), await api.push('c.bin'), await api.push('same.bin')];
    await api.commit([a, b, c, same]);
    await api.createBranch('feature');
    const sameBytes = randomBytes(16);
    const onFeature = [await api.push('a.bin'), await api.push('c.bin'), await api.push('same.bin', sameBytes)];
    await api.commit(onFeature, { branch: 'feature', deletes: [b.fileId] });
    const onMain = [await api.push('a.bin'), await api.push('b.bin'), await api.push('same.bin', sameBytes)];
    await api.commit(onMain, { deletes: [c.fileId] });
    const before = (await api.log()).data.length;
    const res = await merge(p, 'feature');
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body).toMatchObject({ code: 'merge_conflict', count: 3 });
    expect(res.body.conflicts).toEqual([
      { fileId: a.fileId, path: 'a.bin', sourceVersion: 2, targetVersion: 3, baseVersion: 1 },
      { fileId: b.fileId, path: 'b.bin', sourceVersion: null, targetVersion: 2, baseVersion: 1 },
      { fileId: c.fileId, path: 'c.bin', sourceVersion: 2, targetVersion: null, baseVersion: 1 },
    ]);
    expect((await api.log()).data.length).toBe(before);
  });

  it('settles conflicts as resolutions say; taking a version not newer than the target makes a new one with its content', async () => {
    const { p, api } = await project();
    const [a, b] = [await api.push('a.bin'), await api.push('b.bin')];
    await api.commit([a, b]);
    await api.createBranch('feature');
    const sourceA = await api.push('a.bin');
    const sourceB = await api.push('b.bin');
    await api.commit([sourceA, sourceB], { branch: 'feature' });
    const mainA = await api.push('a.bin');
    const mainB = await api.push('b.bin');
    await api.commit([mainA, mainB]);
    const resolutions = [
      { fileId: a.fileId, take: 'source' },
      { fileId: b.fileId, take: 'target' },
    ];
    const res = await merge(p, 'feature', { resolutions });
    expect(res).toMatchObject({ status: 201, body: { fileCount: 1, kind: 'merge' } });
    const tree = api.expectStatus(await p.api.get(`${api.base}/files`), 200).data;
    const mergedA = tree.find((f: { path: string }) => f.path === 'a.bin');
    // Main held version 3; the source's version 2 comes back as version 4 with version 2's content.
    expect(mergedA).toMatchObject({ version: 4, sha256: sourceA.sha256, size: sourceA.size });
    expect(tree.find((f: { path: string }) => f.path === 'b.bin')).toMatchObject({ version: mainB.version, sha256: mainB.sha256 });
    expect(await merge(p, 'feature', { resolutions })).toMatchObject({ status: 422, body: { code: 'nothing_to_merge' } });
  });

  it('answers 422 when there is nothing to bring over, 404 for an unknown branch and 400 for a bad request', async () => {
    const { p, api } = await project();
    await api.commit([await api.push('a.bin')]);
    await api.createBranch('empty');
    expect(await merge(p, 'empty')).toMatchObject({ status: 422, body: { code: 'nothing_to_merge' } });
    expect(await merge(p, 'nowhere')).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await merge(p, 'empty', { into: 'nowhere' })).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const bad: [Record<string, unknown>, string][] = [
      [{ into: 'empty' }, 'into'],
      [{ into: '..' }, 'into'],
      [{ message: '  ' }, 'message'],
      [{ resolutions: [{ fileId: randomUUID(), take: 'both' }] }, 'resolutions.0.take'],
      [{ resolutions: [{ fileId: 'x', take: 'source' }] }, 'resolutions.0.fileId'],
      [{ resolutions: 'all' }, 'resolutions'],
    ];
    for (const [body, field] of bad) {
      const res = await merge(p, 'empty', body);
      expect(res, JSON.stringify(body)).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
      expect(res.body.message).toContain(field);
    }
    const twice = randomUUID();
    expect(
      await merge(p, 'empty', {
        resolutions: [
          { fileId: twice, take: 'source' },
          { fileId: twice, take: 'target' },
        ],
      }),
    ).toMatchObject({ status: 400, body: { duplicateFileIds: [twice] } });
    const tooMany = Array.from({ length: commit.MAX_COMMIT_ENTRIES + 1 }, () => ({ fileId: randomUUID(), take: 'source' }));
    expect(await merge(p, 'empty', { resolutions: tooMany })).toMatchObject({ status: 413, body: { code: 'batch_too_large' } });
    expect(await p.api.post(`${api.base}/branches/${encodeURIComponent('a..b')}/merge`, {})).toMatchObject({ status: 400 });
  });

  it("refuses a merge changing a file another user locked (409 file_locked), as a commit is; another project's ids change nothing", async () => {
    const { p, api } = await project();
    const [a, b] = [await api.push('a.bin'), await api.push('b.bin')];
    await api.commit([a, b]);
    await api.createBranch('feature');
    await api.commit([await api.push('a.bin')], { branch: 'feature' });
    const teammate = await stack.seed.member(p.orgId, p.projectId, 'member');
    expect((await teammate.api.post(`${api.base}/locks`, { fileIds: [b.fileId] })).status).toBe(200);
    // A lock on a file the merge does not change does not stand in its way; one on a file it changes does.
    expect((await teammate.api.post(`${api.base}/locks`, { fileIds: [a.fileId] })).status).toBe(200);
    const refused = await merge(p, 'feature');
    expect(refused).toMatchObject({ status: 409, body: { code: 'file_locked', lockedFiles: [{ fileId: a.fileId, path: 'a.bin' }] } });
    expect(await teammate.api.delete(`${api.base}/locks`, { fileIds: [a.fileId] })).toMatchObject({ status: 200 });
    // Names and ids are the project's own: another project's branch of the same name is unknown here.
    const other = await project();
    await other.api.createBranch('elsewhere');
    expect(await merge(p, 'elsewhere')).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await merge(p, 'feature', { resolutions: [{ fileId: (await other.api.push('x.bin')).fileId, take: 'source' }] })).toMatchObject({ status: 201 });
  });

  it('merges a branch again: what it took before is no conflict, and catching up with main first is none either', async () => {
    const { p, api } = await project();
    const [a, b] = [await api.push('a.bin'), await api.push('b.bin')];
    await api.commit([a, b]);
    await api.createBranch('feature');
    await api.commit([await api.push('a.bin')], { branch: 'feature' });
    expect((await merge(p, 'feature')).status).toBe(201);
    // The feature changes a again; main changes b, and the feature catches up with main before merging.
    const a3 = await api.push('a.bin');
    await api.commit([a3], { branch: 'feature' });
    const b2 = await api.push('b.bin');
    await api.commit([b2]);
    expect(await merge(p, 'main', { into: 'feature' })).toMatchObject({ status: 201, body: { fileCount: 1 } });
    const again = await merge(p, 'feature');
    expect(again).toMatchObject({ status: 201, body: { fileCount: 1 } });
    expect(await api.tree()).toEqual([
      { path: 'a.bin', version: a3.version },
      { path: 'b.bin', version: b2.version },
    ]);
  });

  it('never undoes a commit that races it on the target: the merge comes first or sees it', async () => {
    const rounds = 6;
    const outcomes = await Promise.all(
      Array.from({ length: rounds }, async () => {
        const { p, api } = await project();
        const [f, g] = [await api.push('f.bin'), await api.push('g.bin')];
        await api.commit([f, g]);
        await api.createBranch('feature');
        // The source deletes f; main's racing commit changes it.
        await api.commit([await api.push('g.bin')], { branch: 'feature', deletes: [f.fileId] });
        const f2 = await api.push('f.bin');
        const [merged, committed] = await Promise.all([
          merge(p, 'feature'),
          p.api.post(`${api.base}/commits`, { message: 'race', fileVersions: [{ fileId: f.fileId, version: f2.version, action: 'modify' }] }),
        ]);
        expect(committed.status, JSON.stringify(committed.body)).toBe(201);
        const tree = await api.tree();
        // f2 is never lost: either the merge came first (and the commit brought f back after it) or it saw the commit and stopped.
        expect(tree.find((x) => x.path === 'f.bin')).toEqual({ path: 'f.bin', version: f2.version });
        if (merged.status === 201) expect(merged.body.sequenceNum).toBeLessThan(committed.body.sequenceNum);
        else expect(merged.body.code).toBe('merge_conflict');
        return merged.status;
      }),
    );
    expect(outcomes.every((s) => s === 201 || s === 409)).toBe(true);
  });

  it('shows the tree and the log of branches after a merge and a restore', async () => {
    const { p, api } = await project();
    const [a, b] = [await api.push('a.bin'), await api.push('b.bin')];
    await api.commit([a, b], { message: 'start' });
    await api.createBranch('feature');
    await api.commit([await api.push('a.bin')], { branch: 'feature', message: 'edit a' });
    expect((await merge(p, 'feature')).status).toBe(201);
    const restored = await p.api.post(`${api.base}/restore`, { files: [{ fileId: a.fileId, toVersion: 1 }] });
    expect(restored).toMatchObject({ status: 200, body: { restored: [{ fileId: a.fileId, newVersion: 3 }] } });
    expect((await api.log()).data.map((c: { message: string; kind: string }) => [c.kind, c.message])).toEqual([
      ['restore', 'Restore a.bin to version 1'],
      ['merge', 'Merge feature into main'],
      ['commit', 'start'],
    ]);
    expect(await api.tree()).toEqual([
      { path: 'a.bin', version: 3 },
      { path: 'b.bin', version: 1 },
    ]);
    // A branch forked now holds all of it; the feature branch holds its own edit only.
    await api.createBranch('after', 'main');
    expect((await api.log('after')).data.map((c: { kind: string }) => c.kind)).toEqual(['restore', 'merge', 'commit']);
    expect(await api.tree('after')).toEqual(await api.tree());
    expect((await api.log('feature')).data.map((c: { message: string }) => c.message)).toEqual(['edit a', 'start']);
    expect(await api.tree('feature')).toEqual([
      { path: 'a.bin', version: 2 },
      { path: 'b.bin', version: 1 },
    ]);
    // Main took the feature's version 2 and then went back: catching up, the feature takes the restore.
    expect(await merge(p, 'main', { into: 'feature' })).toMatchObject({ status: 201, body: { fileCount: 1 } });
    expect(await api.tree('feature')).toEqual(await api.tree());
    expect((await api.log('feature')).data.map((c: { kind: string }) => c.kind)).toEqual(['merge', 'commit', 'commit']);
  });

  it('merges 25,000 changed files in one merge commit', async () => {
    const { p, api } = await project();
    await api.createBranch('big');
    const files = await seedConfirmedVersions(stack.databaseUrl, p, commit.MAX_COMMIT_ENTRIES);
    const onBranch = await p.api.post(`${api.base}/commits`, {
      message: 'big',
      branch: 'big',
      fileVersions: files.map((f) => ({ fileId: f.fileId, version: 1, action: 'add' })),
    });
    expect(onBranch.status, JSON.stringify(onBranch.body)).toBe(201);
    const res = await merge(p, 'big');
    expect(res, JSON.stringify(res.body).slice(0, 300)).toMatchObject({
      status: 201,
      body: { fileCount: commit.MAX_COMMIT_ENTRIES, branch: 'main', kind: 'merge' },
    });
    const page = api.expectStatus(await p.api.get(`${api.base}/files?limit=200`), 200);
    expect(page.data).toHaveLength(200);
    expect(page.data[0]).toMatchObject({ commitSeq: res.body.sequenceNum });
    const lastFile = files[files.length - 1];
    const history = api.expectStatus(await p.api.get(`${api.base}/files/${lastFile.fileId}/versions`), 200);
    expect(history.data).toMatchObject([{ version: 1, commitId: res.body.id }]);
  }, 300_000);
});
