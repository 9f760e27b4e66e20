import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sync } from '@lode/contracts';
import type { PushedFile } from '@lode/testkit';
import { seedConfirmedVersions, startTestStack, type TestStack } from '@lode/system/testing';
import { liveRow, randomSha, sha, workspace } from './helpers.ts';

describe.each(['local', 'nats'] as const)('POST sync through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  /** A fresh project per test, so remote-only listings hold only what the test committed. */
  const project = async () => {
    const p = await stack.seed.project();
    return { p, ws: workspace(p) };
  };

  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  it('answers up_to_date, outdated, modified and conflict against the tip and the history of a path', async () => {
    const { ws } = await project();
    const v1 = await ws.push('Levels/a.umap');
    await ws.commit({ set: [v1] });
    const v2 = await ws.push('Levels/a.umap');
    const seq = await ws.commit({ set: [v2] });
    const res = await ws.sync({ files: [{ path: 'Levels/a.umap', sha256: v2.sha256 }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ files: [liveRow('Levels/a.umap', 'up_to_date', v2, seq)], latestCommitSeq: seq });
    expect(await ws.row({ path: 'Levels/a.umap', sha256: v1.sha256 })).toEqual(liveRow('Levels/a.umap', 'outdated', v2, seq));
    const edited = randomSha();
    expect(await ws.row({ path: 'Levels/a.umap', sha256: edited })).toEqual(liveRow('Levels/a.umap', 'modified', v2, seq));
    // With the version it started from: edited on top of the tip is modified, on top of an older one a conflict.
    expect(await ws.status({ path: 'Levels/a.umap', sha256: edited, baseVersion: 2 })).toBe('modified');
    expect(await ws.status({ path: 'Levels/a.umap', sha256: edited, baseVersion: 1 })).toBe('conflict');
    // A base does not turn known content into a conflict.
    expect(await ws.status({ path: 'Levels/a.umap', sha256: v1.sha256, baseVersion: 1 })).toBe('outdated');
    expect(await ws.status({ path: 'Levels/a.umap', sha256: v2.sha256, baseVersion: 1 })).toBe('up_to_date');
  });

  it('answers local_only with null remote fields for a path never committed, even once uploaded', async () => {
    const { ws } = await project();
    const uploaded = await ws.push('Art/new.png');
    const nulls = { fileId: null, remoteVersion: null, remoteSha256: null, remoteCommitSeq: null, remoteSize: null };
    const res = await ws.sync({
      files: [
        { path: 'Art/new.png', sha256: uploaded.sha256 },
        { path: 'Art/never.png', sha256: randomSha(), baseVersion: 3 },
      ],
    });
    expect(res.body).toEqual({
      files: [
        { path: 'Art/new.png', status: 'local_only', ...nulls },
        { path: 'Art/never.png', status: 'local_only', ...nulls },
      ],
      latestCommitSeq: 0,
    });
  });

  it('answers deleted_remote for content the deleted path had, modified or conflict for new content', async () => {
    const { ws } = await project();
    const v1 = await ws.push('gone.bin');
    await ws.commit({ set: [v1] });
    const v2 = await ws.push('gone.bin');
    await ws.commit({ set: [v2] });
    const deletedAt = await ws.commit({ remove: [v1.fileId] });
    const deleted = { fileId: v1.fileId, remoteVersion: null, remoteSha256: null, remoteCommitSeq: deletedAt, remoteSize: null };
    expect(await ws.row({ path: 'gone.bin', sha256: v2.sha256 })).toEqual({ path: 'gone.bin', status: 'deleted_remote', ...deleted });
    expect(await ws.status({ path: 'gone.bin', sha256: v1.sha256 })).toBe('deleted_remote');
    expect(await ws.row({ path: 'gone.bin', sha256: randomSha() })).toEqual({ path: 'gone.bin', status: 'modified', ...deleted });
    expect(await ws.status({ path: 'gone.bin', sha256: randomSha(), baseVersion: 2 })).toBe('conflict');
    // Nothing to download: a deleted file is never missing.
    const listing = await ws.sync({ files: [], includeRemoteOnly: true });
    expect(listing.body.files).toEqual([]);
  });

  it('treats a path deleted and added again as the new content, its old contents as outdated', async () => {
    const { ws } = await project();
    const v1 = await ws.push('Props/crate.fbx');
    await ws.commit({ set: [v1] });
    await ws.commit({ remove: [v1.fileId] });
    const v2 = await ws.push('Props/crate.fbx');
    expect(v2).toMatchObject({ fileId: v1.fileId, version: 2 });
    const readded = await ws.commit({ set: [v2] });
    expect(await ws.row({ path: 'Props/crate.fbx', sha256: v2.sha256 })).toEqual(liveRow('Props/crate.fbx', 'up_to_date', v2, readded));
    expect(await ws.status({ path: 'Props/crate.fbx', sha256: v1.sha256 })).toBe('outdated');
    expect((await ws.sync({ files: [], includeRemoteOnly: true })).body.files).toEqual([liveRow('Props/crate.fbx', 'missing', v2, readded)]);
  });

  it('after a return to old content (a new version with the old bytes, as restore makes) the old bytes are up to date', async () => {
    const { ws } = await project();
    const original = randomBytes(40);
    const v1 = await ws.push('Docs/spec.pdf', original);
    await ws.commit({ set: [v1] });
    const v2 = await ws.push('Docs/spec.pdf');
    await ws.commit({ set: [v2] });
    const v3 = await ws.push('Docs/spec.pdf', original);
    expect(v3).toMatchObject({ version: 3, sha256: v1.sha256 });
    const restored = await ws.commit({ set: [v3] });
    expect(await ws.row({ path: 'Docs/spec.pdf', sha256: sha(original) })).toEqual(liveRow('Docs/spec.pdf', 'up_to_date', v3, restored));
    expect(await ws.status({ path: 'Docs/spec.pdf', sha256: v2.sha256 })).toBe('outdated');
    expect(await ws.status({ path: 'Docs/spec.pdf', sha256: randomSha(), baseVersion: 2 })).toBe('conflict');
  });

  it('reads a restore right after it: the restored content is up to date, the replaced one outdated', async () => {
    const { p, ws } = await project();
    const v1 = await ws.push('Maps/level.umap');
    await ws.commit({ set: [v1] });
    const v2 = await ws.push('Maps/level.umap');
    await ws.commit({ set: [v2] });
    const restore = await p.api.post(`/api/v1/projects/${p.projectId}/restore`, { files: [{ fileId: v1.fileId, toVersion: 1 }] });
    expect(restore.status, JSON.stringify(restore.body)).toBe(200);
    const res = await ws.sync({
      files: [
        { path: 'Maps/level.umap', sha256: v1.sha256 },
        { path: 'Maps/level.umap', sha256: v2.sha256, baseVersion: 2 },
      ],
    });
    const restored = { ...v1, version: 3 };
    expect(res.body).toEqual({
      files: [
        liveRow('Maps/level.umap', 'up_to_date', restored, restore.body.sequenceNum),
        liveRow('Maps/level.umap', 'outdated', restored, restore.body.sequenceNum),
      ],
      latestCommitSeq: restore.body.sequenceNum,
    });
  });

  it('answers each branch from its own lineage: main up to the branch start, then the branch', async () => {
    const { ws } = await project();
    const x1 = await ws.push('x.bin');
    await ws.commit({ set: [x1] });
    const x2 = await ws.push('x.bin');
    const y1 = await ws.push('y.bin');
    const branchSeq = await ws.commit({ set: [x2, y1] }, 'feature/art');
    const x3 = await ws.push('x.bin');
    const z1 = await ws.push('z.bin');
    const mainSeq = await ws.commit({ set: [x3, z1] });
    const onBranch = { branch: 'feature/art' };

    expect(await ws.row({ path: 'x.bin', sha256: x2.sha256 }, onBranch)).toEqual(liveRow('x.bin', 'up_to_date', x2, branchSeq));
    expect(await ws.status({ path: 'x.bin', sha256: x1.sha256 }, onBranch)).toBe('outdated');
    // Main's later commits are not in the branch's lineage, and the branch's never reach main.
    expect(await ws.status({ path: 'x.bin', sha256: x3.sha256 }, onBranch)).toBe('modified');
    expect(await ws.status({ path: 'z.bin', sha256: z1.sha256 }, onBranch)).toBe('local_only');
    expect(await ws.status({ path: 'x.bin', sha256: x2.sha256 })).toBe('modified');
    expect(await ws.status({ path: 'y.bin', sha256: y1.sha256 })).toBe('local_only');
    expect(await ws.row({ path: 'x.bin', sha256: x3.sha256 })).toEqual(liveRow('x.bin', 'up_to_date', x3, mainSeq));

    const listing = async (extra = {}) => (await ws.sync({ files: [], includeRemoteOnly: true, ...extra })).body;
    expect(await listing(onBranch)).toEqual({
      files: [liveRow('x.bin', 'missing', x2, branchSeq), liveRow('y.bin', 'missing', y1, branchSeq)],
      latestCommitSeq: mainSeq,
    });
    expect((await listing()).files).toEqual([liveRow('x.bin', 'missing', x3, mainSeq), liveRow('z.bin', 'missing', z1, mainSeq)]);
    // A branch without a commit yet is what its first commit would start from: main.
    expect(await listing({ branch: 'feature/none-yet' })).toEqual(await listing());
  });

  it('matches a path in any letter case and Unicode form, answering with the path as the client sent it', async () => {
    const { ws } = await project();
    const hero = await ws.push('Art/Hero.png');
    const cafe = await ws.push('Caf\u00e9/Menu.txt');
    const seq = await ws.commit({ set: [hero, cafe] });
    const res = await ws.sync({
      files: [
        { path: 'art/HERO.PNG', sha256: hero.sha256 },
        { path: 'CAFE\u0301/menu.TXT', sha256: cafe.sha256.toUpperCase() },
        { path: 'Art/hero.png', sha256: randomSha() },
      ],
      includeRemoteOnly: true,
    });
    expect(res.body.files).toEqual([
      liveRow('art/HERO.PNG', 'up_to_date', hero, seq),
      liveRow('CAF\u00c9/menu.TXT', 'up_to_date', cafe, seq),
      liveRow('Art/hero.png', 'modified', hero, seq),
    ]);
  });

  it('lists remote-only files as missing: those no batch of the session listed, on its last batch', async () => {
    const { ws } = await project();
    const remote: PushedFile[] = [];
    for (let i = 0; i < 6; i++) remote.push(await ws.push(`r/${i}.bin`));
    const seq = await ws.commit({ set: remote });
    const local = (i: number) => ({ path: `R/${i}.BIN`, sha256: remote[i].sha256 });
    const id = randomUUID();
    const batch0 = await ws.sync({ files: [local(0), local(1)], session: { id, batch: 0 } });
    expect(batch0.body.files.map((r: { status: string }) => r.status)).toEqual(['up_to_date', 'up_to_date']);
    // A retried batch is harmless.
    expect((await ws.sync({ files: [local(0), local(1)], session: { id, batch: 0 } })).status).toBe(200);
    // Batches may come in any order, but the last waits for all the others.
    const early = await ws.sync({ files: [local(4)], session: { id, batch: 2 }, includeRemoteOnly: true });
    expect(early).toMatchObject({ status: 409, body: { code: 'sync_session_incomplete', missingBatches: [1] } });
    await ws.sync({ files: [local(2), { path: 'only-here.bin', sha256: randomSha() }], session: { id, batch: 1 } });
    const last = await ws.sync({ files: [local(4)], session: { id, batch: 2 }, includeRemoteOnly: true });
    expect(last.body).toEqual({
      files: [liveRow('R/4.BIN', 'up_to_date', remote[4], seq), liveRow('r/3.bin', 'missing', remote[3], seq), liveRow('r/5.bin', 'missing', remote[5], seq)],
      latestCommitSeq: seq,
    });
    // The session ended with its listing; sending its last batch again names the batches it no longer knows.
    const replay = await ws.sync({ files: [local(4)], session: { id, batch: 2 }, includeRemoteOnly: true });
    expect(replay).toMatchObject({ status: 409, body: { code: 'sync_session_incomplete', missingBatches: [0, 1] } });
    // Without a session, one request is the whole workspace.
    const single = await ws.sync({ files: [local(0), local(1), local(2), local(3)], includeRemoteOnly: true });
    expect(single.body.files.slice(4)).toEqual([liveRow('r/4.bin', 'missing', remote[4], seq), liveRow('r/5.bin', 'missing', remote[5], seq)]);
  });

  it('streams a remote-only listing larger than a page, each file once, in path order', async () => {
    const { p, ws } = await project();
    const files = await seedConfirmedVersions(stack.databaseUrl, p, sync.REMOTE_ONLY_PAGE * 2 + 7, 'big');
    await ws.commit({ set: files });
    const res = await ws.sync({ files: [{ path: files[3].path, sha256: files[3].sha256 }], includeRemoteOnly: true });
    expect(res.status).toBe(200);
    expect(res.body.files).toHaveLength(files.length);
    expect(res.body.files[0]).toMatchObject({ path: files[3].path, status: 'up_to_date' });
    const missing = res.body.files.slice(1).map((r: { path: string; status: string }) => r.path);
    expect(missing).toEqual(files.filter((_, i) => i !== 3).map((f) => f.path));
  });

  it.each([
    ['files that are not an array', { files: 'all' }, 'files'],
    ['no files', {}, 'files'],
    [
      'a bad hash at index 2',
      {
        files: [
          { path: 'a', sha256: randomSha() },
          { path: 'b', sha256: randomSha() },
          { path: 'c', sha256: 'abc' },
        ],
      },
      'files.2.sha256',
    ],
    [
      'a path with ".." at index 1',
      {
        files: [
          { path: 'a', sha256: randomSha() },
          { path: 'a/../b', sha256: randomSha() },
        ],
      },
      'files.1.path',
    ],
    ['an absolute path', { files: [{ path: '/etc/passwd', sha256: randomSha() }] }, 'files.0.path'],
    ['an empty path', { files: [{ path: '', sha256: randomSha() }] }, 'files.0.path'],
    ['a backslash path', { files: [{ path: 'a\\b', sha256: randomSha() }] }, 'files.0.path'],
    ['a path that is not a string', { files: [{ path: 7, sha256: randomSha() }] }, 'files.0.path'],
    ['baseVersion 0', { files: [{ path: 'a', sha256: randomSha(), baseVersion: 0 }] }, 'files.0.baseVersion'],
    ['a bad branch name', { files: [], branch: '../main' }, 'branch'],
    ['includeRemoteOnly that is not a boolean', { files: [], includeRemoteOnly: 'yes' }, 'includeRemoteOnly'],
    ['a session without a uuid', { files: [], session: { id: 'x', batch: 0 } }, 'session.id'],
    ['a negative batch number', { files: [], session: { id: randomUUID(), batch: -1 } }, 'session.batch'],
  ])('answers 400 naming the field for %s', async (_name, body, field) => {
    const { ws } = await project();
    const res = await ws.sync(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.message).toContain(field);
  });

  it('takes 10,000 files in one request and answers 413 above', async () => {
    const { ws } = await project();
    const files = Array.from({ length: sync.MAX_SYNC_BATCH }, (_, i) => ({ path: `w/${i}.bin`, sha256: randomSha() }));
    const ok = await ws.sync({ files });
    expect(ok.status).toBe(200);
    expect(ok.body.files).toHaveLength(sync.MAX_SYNC_BATCH);
    expect(new Set(ok.body.files.map((r: { status: string }) => r.status))).toEqual(new Set(['local_only']));
    const tooMany = await ws.sync({ files: [...files, { path: 'one-more.bin', sha256: randomSha() }] });
    expect(tooMany).toMatchObject({ status: 413, body: { code: 'batch_too_large', max: sync.MAX_SYNC_BATCH } });
  });

  it("answers 404 for another project's id", async () => {
    const { p } = await project();
    const other = await stack.seed.project();
    const res = await p.api.post(`/api/v1/projects/${other.projectId}/sync`, { files: [] });
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('reads its writes: a sync right after each commit holds that commit and its sequence number', async () => {
    const { ws } = await project();
    for (let round = 1; round <= 5; round++) {
      const f = await ws.push('hot.bin');
      const seq = await ws.commit({ set: [f] });
      expect(seq).toBe(round);
      expect(await ws.sync({ files: [{ path: 'hot.bin', sha256: f.sha256 }] })).toMatchObject({
        status: 200,
        body: { files: [liveRow('hot.bin', 'up_to_date', f, seq)], latestCommitSeq: seq },
      });
    }
  });
});
