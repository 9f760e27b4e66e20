import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathKey } from '@lode/contracts';
import type { PushedFile } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { projectApi } from './branch-helpers.ts';
import { folderApi, foldLevel } from './folder-model.ts';

const bytes = (size: number) => randomBytes(size);

describe.each(['local', 'nats'] as const)('the folder listing through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  const project = async () => {
    const p = await stack.seed.project();
    return { p, api: projectApi(p), folders: folderApi(p) };
  };

  it('lists the immediate children of a folder: subfolders with recursive counts and sizes by name, then files by name', async () => {
    const { p, api, folders } = await project();
    const pushed = [];
    for (const [path, size] of [
      ['Content/Maps/Forest.umap', 100],
      ['Content/Maps/Desert/Dunes.umap', 40],
      ['Content/Maps/Desert/Oasis.umap', 2],
      ['Content/Textures/rock.png', 7],
      ['Content/readme.txt', 3],
      ['Content-old/x.bin', 5],
      ['root.bin', 11],
    ] as const) {
      pushed.push(await api.push(path, bytes(size)));
    }
    await api.commit(pushed);
    const root = api.expectStatus(await p.api.get(`${folders.base}/folders`), 200);
    expect(root).toEqual({
      data: [
        // By name in byte order: a name comes before the longer names it begins.
        { type: 'folder', name: 'Content', path: 'Content/', fileCount: 5, totalSize: 152 },
        { type: 'folder', name: 'Content-old', path: 'Content-old/', fileCount: 1, totalSize: 5 },
        {
          type: 'file',
          name: 'root.bin',
          fileId: pushed[6].fileId,
          path: 'root.bin',
          version: 1,
          sha256: pushed[6].sha256,
          size: 11,
          commitSeq: expect.any(Number),
          updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        },
      ],
      nextCursor: null,
    });
    // With or without the trailing slash, as the tree's prefix.
    for (const prefix of ['Content/', 'Content']) {
      expect(await folders.level(prefix)).toEqual([
        { type: 'folder', name: 'Maps', path: 'Content/Maps/', fileCount: 3, totalSize: 142 },
        { type: 'folder', name: 'Textures', path: 'Content/Textures/', fileCount: 1, totalSize: 7 },
        { type: 'file', name: 'readme.txt', fileId: pushed[4].fileId, path: 'Content/readme.txt', size: 3 },
      ]);
    }
    expect(await folders.level('Content/Maps/Desert/')).toEqual([
      { type: 'file', name: 'Dunes.umap', fileId: pushed[1].fileId, path: 'Content/Maps/Desert/Dunes.umap', size: 40 },
      { type: 'file', name: 'Oasis.umap', fileId: pushed[2].fileId, path: 'Content/Maps/Desert/Oasis.umap', size: 2 },
    ]);
    await folders.matchesFold();
  });

  it('pages across subfolders and files, one child a page and more, with cursors bound to the folder', async () => {
    const { p, api, folders } = await project();
    const pushed: PushedFile[] = [];
    for (const path of ['a/1.bin', 'b/1.bin', 'b/c/1.bin', 'c/1.bin', 'x.bin', 'y.bin', 'z.bin']) pushed.push(await api.push(path, bytes(4)));
    await api.commit(pushed);
    const whole = await folders.level('');
    expect(whole.map((c) => `${c.type}:${c.name}`)).toEqual(['folder:a', 'folder:b', 'folder:c', 'file:x.bin', 'file:y.bin', 'file:z.bin']);
    for (const limit of [1, 2, 3, 4, 5, 6, 7]) expect(await folders.level('', { limit })).toEqual(whole);
    const first = api.expectStatus(await p.api.get(`${folders.base}/folders?limit=3`), 200);
    expect(first.data.map((c: { name: string }) => c.name)).toEqual(['a', 'b', 'c']);
    // The next page starts with the files: the cursor after the last folder.
    const second = api.expectStatus(await p.api.get(`${folders.base}/folders?limit=3&cursor=${encodeURIComponent(first.nextCursor)}`), 200);
    expect(second).toMatchObject({ data: [{ name: 'x.bin' }, { name: 'y.bin' }, { name: 'z.bin' }], nextCursor: null });
    // A cursor of another folder, branch, project or list is refused.
    for (const other of [`prefix=b/&cursor=`, `branch=main&prefix=a&cursor=`]) {
      expect(await p.api.get(`${folders.base}/folders?${other}${encodeURIComponent(first.nextCursor)}`)).toMatchObject({
        status: 400,
        body: { code: 'validation_failed' },
      });
    }
    const tree = api.expectStatus(await p.api.get(`${folders.base}/files?limit=1`), 200);
    expect(await p.api.get(`${folders.base}/folders?cursor=${encodeURIComponent(tree.nextCursor)}`)).toMatchObject({ status: 400 });
    expect(await p.api.get(`${folders.base}/folders?cursor=${encodeURIComponent(`${first.nextCursor.slice(0, -2)}xx`)}`)).toMatchObject({ status: 400 });
    const other = await project();
    expect(await other.p.api.get(`${other.folders.base}/folders?cursor=${encodeURIComponent(first.nextCursor)}`)).toMatchObject({ status: 400 });
  });

  it('keeps counts and sizes right through adds, modifies, deletes, moves, restores, branches and merges', async () => {
    const { p, api, folders } = await project();
    const forest = await api.push('Levels/Forest/map.umap', bytes(10));
    const tree = await api.push('Levels/Forest/tree.fbx', bytes(20));
    const rock = await api.push('Levels/rock.png', bytes(30));
    await api.commit([forest, tree, rock]);
    expect(await folders.level('')).toEqual([{ type: 'folder', name: 'Levels', path: 'Levels/', fileCount: 3, totalSize: 60 }]);

    // Modify: a new size moves the sizes of every folder above it, not the counts.
    const forest2 = await api.push('Levels/Forest/map.umap', bytes(15));
    await api.commit([forest2]);
    expect(await folders.level('')).toEqual([{ type: 'folder', name: 'Levels', path: 'Levels/', fileCount: 3, totalSize: 65 }]);
    expect((await folders.level('Levels/'))[0]).toEqual({ type: 'folder', name: 'Forest', path: 'Levels/Forest/', fileCount: 2, totalSize: 35 });

    // Move (a delete and an add under another path in one commit): the old folder empties and goes.
    const moved = await api.push('Archive/Forest/tree.fbx', bytes(20));
    await api.commit([moved], { deletes: [tree.fileId] });
    expect(await folders.level('')).toEqual([
      { type: 'folder', name: 'Archive', path: 'Archive/', fileCount: 1, totalSize: 20 },
      { type: 'folder', name: 'Levels', path: 'Levels/', fileCount: 2, totalSize: 45 },
    ]);
    await api.commit([], { deletes: [forest.fileId] });
    expect(await folders.level('Levels/')).toEqual([{ type: 'file', name: 'rock.png', fileId: rock.fileId, path: 'Levels/rock.png', size: 30 }]);
    expect(await p.api.get(`${folders.base}/folders?prefix=Levels/Forest/`)).toMatchObject({ status: 404, body: { code: 'not_found' } });

    // Restore brings the deleted file back, with the size of the version restored.
    const restored = await p.api.post(`${folders.base}/restore`, { files: [{ fileId: forest.fileId, toVersion: 1 }] });
    expect(restored).toMatchObject({ status: 200, body: { restored: [{ fileId: forest.fileId }] } });
    expect((await folders.level('Levels/'))[0]).toEqual({ type: 'folder', name: 'Forest', path: 'Levels/Forest/', fileCount: 1, totalSize: 10 });
    await folders.matchesFold();

    // A branch starts with its parent's folders, changes them alone, and a merge brings its changes over.
    await api.createBranch('art');
    await folders.matchesFold('art');
    const bark = await api.push('Levels/Forest/bark.png', bytes(8));
    await api.commit([bark], { branch: 'art', deletes: [rock.fileId] });
    expect(await folders.level('Levels/', { branch: 'art' })).toEqual([
      { type: 'folder', name: 'Forest', path: 'Levels/Forest/', fileCount: 2, totalSize: 18 },
    ]);
    expect(await folders.level('Levels/')).toEqual([
      { type: 'folder', name: 'Forest', path: 'Levels/Forest/', fileCount: 1, totalSize: 10 },
      { type: 'file', name: 'rock.png', fileId: rock.fileId, path: 'Levels/rock.png', size: 30 },
    ]);
    expect(await p.api.post(`${folders.base}/branches/art/merge`, {})).toMatchObject({ status: 201 });
    expect(await folders.level('Levels/')).toEqual([{ type: 'folder', name: 'Forest', path: 'Levels/Forest/', fileCount: 2, totalSize: 18 }]);
    await folders.matchesFold();
    await folders.matchesFold('art');

    // A deleted branch takes its folders with it; its name reused starts from main's.
    expect(await p.api.delete(`${folders.base}/branches/art`)).toMatchObject({ status: 200 });
    expect(await p.api.get(`${folders.base}/folders?branch=art`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    await api.createBranch('art');
    await folders.matchesFold('art');
  });

  it('answers 404 for a folder with no live file and an unknown branch, 400 for a bad prefix, limit or branch', async () => {
    const { p, api, folders } = await project();
    expect(api.expectStatus(await p.api.get(`${folders.base}/folders`), 200)).toEqual({ data: [], nextCursor: null });
    await api.commit([await api.push('Levels/a.bin', bytes(3))]);
    // Matched exactly, letter case included, as the tree's prefix; a file is not a folder.
    for (const prefix of ['Nowhere/', 'levels/', 'Lev/', 'Levels/a.bin', 'Levels/a.bin/']) {
      expect(await p.api.get(`${folders.base}/folders?prefix=${encodeURIComponent(prefix)}`), prefix).toMatchObject({
        status: 404,
        body: { code: 'not_found' },
      });
    }
    expect(await p.api.get(`${folders.base}/folders?branch=nowhere`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    for (const query of [
      'prefix=/abs',
      'prefix=a//b',
      'prefix=../x',
      'prefix=a\\b',
      `prefix=${encodeURIComponent('a\u0001')}`,
      'limit=0',
      'limit=201',
      'limit=x',
      'branch=a..b',
      'cursor=',
    ]) {
      const res = await p.api.get(`${folders.base}/folders?${query}`);
      expect(res, query).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
      expect(typeof res.body.message).toBe('string');
    }
  });

  it("never shows another project's folders", async () => {
    const mine = await project();
    const theirs = await project();
    await theirs.api.commit([await theirs.api.push('Secret/plan.bin', bytes(9)), await theirs.api.push('Shared/b.bin', bytes(9))]);
    await mine.api.commit([await mine.api.push('Shared/a.bin', bytes(4))]);
    expect(await mine.folders.level('')).toEqual([{ type: 'folder', name: 'Shared', path: 'Shared/', fileCount: 1, totalSize: 4 }]);
    expect(await mine.folders.level('Shared/')).toEqual([expect.objectContaining({ name: 'a.bin', size: 4 })]);
    expect(await mine.p.api.get(`${mine.folders.base}/folders?prefix=Secret/`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    // Their project's route with my key is refused before any listing.
    expect((await mine.p.api.get(`${theirs.folders.base}/folders`)).status).toBeGreaterThanOrEqual(400);
  });

  it('matches a fold of the full file list for random trees and random change sequences', async () => {
    const segment = fc.constantFrom('a', 'b', 'B', 'a-b', 'a0', 'é', 'Z');
    const path = fc
      .tuple(fc.array(segment, { minLength: 0, maxLength: 3 }), fc.constantFrom('x.bin', 'y.bin', 'A.bin'))
      .map(([dirs, name]) => [...dirs, name].join('/'));
    const step = fc.record({
      adds: fc.array(fc.tuple(path, fc.integer({ min: 1, max: 64 })), { maxLength: 4 }),
      modifies: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 64 })), { maxLength: 2 }),
      deletes: fc.array(fc.nat(), { maxLength: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 4 }), async (steps, limit) => {
        const { api, folders } = await project();
        // The model: live files by path key (two paths that differ only in letter case are one file).
        const live = new Map<string, { fileId: string; path: string; size: number }>();
        // A path, once pushed, keeps its letter case for good (deleted or not): pushed again in another case, it is that file.
        const stored = new Map<string, string>();
        for (const { adds, modifies, deletes } of steps) {
          const pushed = new Map<string, PushedFile>();
          const gone = new Set<string>();
          const present = [...live.values()];
          for (const [p, size] of adds) {
            const key = pathKey(p);
            if (pushed.has(key)) continue;
            if (!stored.has(key)) stored.set(key, p);
            pushed.set(key, await api.push(stored.get(key) as string, bytes(size)));
          }
          for (const [i, size] of modifies) {
            const target = present[i % Math.max(present.length, 1)];
            if (target && !pushed.has(pathKey(target.path))) pushed.set(pathKey(target.path), await api.push(target.path, bytes(size)));
          }
          for (const i of deletes) {
            const target = present[i % Math.max(present.length, 1)];
            if (target && !pushed.has(pathKey(target.path))) gone.add(pathKey(target.path));
          }
          if (pushed.size === 0 && gone.size === 0) continue;
          await api.commit([...pushed.values()], { deletes: [...gone].map((key) => (live.get(key) as { fileId: string }).fileId) });
          for (const [key, file] of pushed) live.set(key, { fileId: file.fileId, path: file.path, size: file.size });
          for (const key of gone) live.delete(key);
          const listed = await folders.matchesFold(undefined, limit);
          expect(listed.map((f) => f.path).sort()).toEqual([...live.values()].map((f) => f.path).sort());
          expect(await folders.level('', { limit })).toEqual(foldLevel([...live.values()], ''));
        }
      }),
      { numRuns: 5 },
    );
  });
});
