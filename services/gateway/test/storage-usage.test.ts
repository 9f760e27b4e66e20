import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { StorageClient } from './storage-helpers.ts';

describe.each(['local', 's3'] as const)('storage usage (%s storage)', (storageDriver) => {
  let stack: TestStack;
  let client: StorageClient;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: storageDriver });
    client = new StorageClient(stack, await stack.seed.project());
  });
  afterAll(async () => stack?.stop());

  it('counts uploads, dedups, duplicates in a batch, restores and Git LFS objects as a recount from scratch does', async () => {
    const empty = await client.usage();
    expect(empty).toMatchObject({ logicalBytes: 0, storedBytes: 0, versions: 0, objects: 0, quota: null });
    expect(empty.history).toHaveLength(1);

    const level = randomBytes(1000);
    const a = await client.push('Levels/forest.umap', level);
    const copy = await client.push('Levels/copy.umap', level); // dedup: no new object
    expect(copy.dedup).toBe(true);
    const tex1 = randomBytes(300);
    const tex = await client.push('Textures/rock.png', tex1);
    const tex2 = await client.push('Textures/rock.png', randomBytes(500));
    // Two new paths of one new content in one batch: neither dedups, so storage holds two objects.
    const twin = randomBytes(200);
    await client.pushBatch([
      { path: 'Props/a.fbx', bytes: twin },
      { path: 'Props/b.fbx', bytes: twin },
    ]);
    await client.commit([a, copy, tex2].map(({ fileId, version }) => ({ fileId, version })));
    // A restore makes a version that shares its source's object.
    const [restored] = await client.restore([{ fileId: tex.fileId, toVersion: 1 }]);
    expect(restored.newVersion).toBe(3);
    // Git LFS: one new object; one the project already holds (nothing sent, nothing added).
    expect(await client.lfsPush(randomBytes(700))).toBe(true);
    expect(await client.lfsPush(level)).toBe(false);

    const expected = {
      logicalBytes: 1000 + 1000 + 300 + 500 + 200 + 200 + 300,
      versions: 7,
      storedBytes: 1000 + 300 + 500 + 200 + 200 + 700,
      objects: 6,
    };
    const before = await client.usageAndRecount();
    expect(before.usage).toEqual(expected);
    expect(before.recount).toEqual(expected);

    // Folding moves the deltas into the totals and changes no answer; folds running at once share the work.
    await Promise.all([stack.upload.usage.fold(), stack.upload.usage.fold(), stack.upload.usage.fold()]);
    const after = await client.usageAndRecount();
    expect(after.usage).toEqual(expected);
    expect(after.recount).toEqual(expected);

    const usage = await client.usage();
    const today = new Date().toISOString().slice(0, 10);
    expect(usage.history.at(-1)).toEqual({ day: today, ...expected });
    expect(usage.collectable).toEqual({ objects: 0, bytes: 0 });
  });

  it('breaks usage down by path prefix and by file extension on request', async () => {
    const usage = await client.usage('?prefix=levels/&by=extension');
    expect(usage.byPrefix).toEqual({ prefix: 'levels', files: 2, versions: 2, logicalBytes: 2000, storedBytes: 1000, objects: 1 });
    expect(usage.byExtension).toEqual([{ extension: 'umap', files: 2, versions: 2, logicalBytes: 2000, storedBytes: 1000, objects: 1 }]);
    const all = await client.usage('?by=extension');
    expect(all.byExtension.map((e: { extension: string }) => e.extension)).toEqual(['umap', 'png', 'fbx']);
    expect(all.byExtension[1]).toEqual({ extension: 'png', files: 1, versions: 3, logicalBytes: 1100, storedBytes: 800, objects: 2 });
    // A file is a prefix too; a path the rules refuse is the caller's mistake.
    expect((await client.usage('?prefix=Textures/rock.png')).byPrefix).toMatchObject({ files: 1, versions: 3 });
    for (const bad of ['?prefix=/abs', '?prefix=a//b', '?by=size', '?prefix=']) {
      const response = await client.api.get(client.url(`/usage${bad}`));
      expect(response.status, bad).toBe(400);
      expect(response.body.code).toBe('validation_failed');
    }
  });

  it('answers operators through the admin API, and 404 for a project that does not exist', async () => {
    const admin = stack.seed.admin;
    const response = await admin.get(`/admin/v1/projects/${client.project.projectId}/usage`);
    expect(response.status).toBe(200);
    expect(response.body.versions).toBe(7);
    expect((await admin.get(`/admin/v1/projects/${randomUUID()}/usage`)).status).toBe(404);
    expect((await admin.get('/admin/v1/projects/not-a-uuid/usage')).status).toBe(404);
  });
});
