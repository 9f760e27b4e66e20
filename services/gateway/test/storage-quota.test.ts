import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeContent } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { StorageClient } from './storage-helpers.ts';

const MiB = 1024 * 1024;

describe.each(['local', 's3'] as const)('storage quotas (%s storage)', (storageDriver) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: storageDriver });
  });
  afterAll(async () => stack?.stop());

  const project = async () => new StorageClient(stack, await stack.seed.project());
  const setOwn = (client: StorageClient, bytes: number | null) => client.api.request('PUT', client.url('/quota'), { bytes });
  const setOperator = (client: StorageClient, bytes: number | null) =>
    stack.seed.admin.request('PUT', `/admin/v1/projects/${client.project.projectId}/quota`, { bytes });
  const initiate = (client: StorageClient, path: string, bytes: Buffer) =>
    client.api.post(client.url('/files/upload/initiate'), { path, ...describeContent(bytes) });

  it('is set by the operator, and lower by owners and admins only', async () => {
    const client = await project();
    const member = new StorageClient(stack, await stack.seed.member(client.project.orgId, client.project.projectId, 'member'));
    expect((await setOwn(member, 100)).status).toBe(403);
    expect((await setOperator(client, 1000)).body).toEqual({ quota: { bytes: 1000, source: 'operator' }, operatorBytes: 1000, projectBytes: null });
    const above = await setOwn(client, 2000);
    expect(above.status).toBe(400);
    expect(above.body).toMatchObject({ code: 'validation_failed', maximum: 1000, issues: [{ path: 'bytes' }] });
    expect((await setOwn(client, 600)).body).toEqual({ quota: { bytes: 600, source: 'project' }, operatorBytes: 1000, projectBytes: 600 });
    expect((await client.usage()).quota).toEqual({ bytes: 600, source: 'project' });
    // The operator lowering theirs below the project's own makes theirs the one that applies.
    expect((await setOperator(client, 500)).body.quota).toEqual({ bytes: 500, source: 'operator' });
    expect((await setOperator(client, null)).body).toEqual({ quota: { bytes: 600, source: 'project' }, operatorBytes: null, projectBytes: 600 });
    expect((await setOwn(client, null)).body.quota).toBeNull();
    for (const bad of [{ bytes: -1 }, { bytes: 1.5 }, { bytes: '10' }, {}]) {
      const response = await client.api.request('PUT', client.url('/quota'), bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.code).toBe('validation_failed');
    }
    expect((await stack.seed.admin.request('PUT', `/admin/v1/projects/${client.project.userId}/quota`, { bytes: 1 })).status).toBe(404);
  });

  it('refuses uploads past it with 507 quota_exceeded, entry by entry, and never a dedup or a confirm already under way', async () => {
    const client = await project();
    await setOperator(client, 1000);
    const kept = randomBytes(600);
    await client.push('a.bin', kept);

    const single = await initiate(client, 'b.bin', randomBytes(500));
    expect(single.status).toBe(507);
    expect(single.body).toMatchObject({ code: 'quota_exceeded', usedBytes: 600, requestedBytes: 500, quotaBytes: 1000, quotaSource: 'operator' });

    // In a batch, each entry on its own: the first fits, the second would pass, a dedup stores nothing, a smaller one still fits.
    const batch = await client.api.post(client.url('/files/upload/initiate-batch'), {
      files: [
        { path: 'c.bin', ...describeContent(randomBytes(300)) },
        { path: 'd.bin', ...describeContent(randomBytes(300)) },
        { path: 'e.bin', ...describeContent(kept) },
        { path: 'f.bin', ...describeContent(randomBytes(100)) },
      ],
    });
    expect(batch.status).toBe(200);
    const [c, d, e, f] = batch.body.results;
    expect(c.uploadUrl).toEqual(expect.any(String));
    expect(d).toMatchObject({ path: 'd.bin', code: 'quota_exceeded' });
    expect(e).toMatchObject({ dedup: true });
    expect(f.uploadUrl).toEqual(expect.any(String));

    // In parts too.
    const parts = await client.api.post(client.url('/files/upload/initiate'), {
      path: 'big.bin',
      sha256: 'a'.repeat(64),
      size: 9 * MiB,
      multipart: {
        partSize: 8 * MiB,
        parts: [
          { size: 8 * MiB, contentMd5: 'AAAAAAAAAAAAAAAAAAAAAA==' },
          { size: MiB, contentMd5: 'AAAAAAAAAAAAAAAAAAAAAA==' },
        ],
      },
    });
    expect(parts.status).toBe(507);

    // And through Git LFS, per object.
    const oid = createHash('sha256').update(randomBytes(10)).digest('hex');
    const lfs = await fetch(`${stack.baseUrl}/lfs/${client.project.projectId}/objects/batch`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.project.deviceId}:${client.project.key}`).toString('base64')}`,
        accept: 'application/vnd.git-lfs+json',
        'content-type': 'application/vnd.git-lfs+json',
      },
      body: JSON.stringify({ operation: 'upload', transfers: ['basic'], objects: [{ oid, size: 5000 }] }),
    });
    expect(lfs.status).toBe(200);
    expect(((await lfs.json()) as { objects: unknown[] }).objects[0]).toMatchObject({ oid, error: { code: 507 } });
  });

  it('never makes a commit of uploads already initiated half-succeed: confirms go through once it is lowered', async () => {
    const client = await project();
    const files = [randomBytes(400), randomBytes(400)];
    const forms = await Promise.all(files.map((bytes, i) => initiate(client, `level-${i}.umap`, bytes)));
    await Promise.all(forms.map((form, i) => fetch(form.body.uploadUrl, { method: 'PUT', headers: form.body.requiredHeaders, body: files[i] })));
    await setOperator(client, 100);
    const confirmed = await client.api.post(client.url('/files/upload/confirm-batch'), {
      files: forms.map((form, i) => ({ fileId: form.body.fileId, version: form.body.version, storageKey: form.body.storageKey, ...describeContent(files[i]) })),
    });
    expect(confirmed.body.results).toMatchObject([{ confirmed: true }, { confirmed: true }]);
    await client.commit(forms.map((form) => ({ fileId: form.body.fileId, version: form.body.version })));
    expect((await client.usage()).storedBytes).toBe(800);
    expect((await initiate(client, 'more.bin', randomBytes(1))).status).toBe(507);
  });

  it('warns once per crossing of 80 %, on the feed and to webhooks', async () => {
    const client = await project();
    await setOperator(client, 1000);
    const warnings = async () => (await client.feed('quota.warning')).map((event) => event.data);
    const settle = async () => {
      await stack.upload.usage.fold();
      return stack.upload.quotas.warnCrossings();
    };

    // The other tests' projects crossed theirs: their warnings go first.
    await settle();
    await client.push('a.bin', randomBytes(700));
    expect(await settle()).toBe(0);
    await client.push('b.bin', randomBytes(150));
    // Another replica's fold at the same moment finds the crossing taken.
    expect((await Promise.all([settle(), settle()])).reduce((a, b) => a + b, 0)).toBe(1);
    await client.push('c.bin', randomBytes(100));
    expect(await settle()).toBe(0); // still past it: no second warning
    await expect.poll(warnings, { timeout: 10_000 }).toEqual([{ scope: 'project', storedBytes: 850, quotaBytes: 1000, quotaSource: 'operator', percent: 85 }]);

    // Back below it (an obliteration, collected), then past it again: a second warning.
    const dry = await client.api.post(client.url('/obliterate'), { path: 'a.bin', dryRun: true });
    expect((await client.api.post(client.url('/obliterate'), { path: 'a.bin', confirmToken: dry.body.confirmToken })).status).toBe(200);
    await stack.upload.objects.runOnce(Date.now() + 3_600_000);
    expect(await settle()).toBe(0);
    await client.push('d.bin', randomBytes(600));
    expect(await settle()).toBe(1);
    await expect.poll(async () => (await warnings()).length, { timeout: 10_000 }).toBe(2);
  });
});
