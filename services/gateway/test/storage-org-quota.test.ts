import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, describeContent } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { figuresOf, StorageClient } from './storage-helpers.ts';

describe.each(['local', 's3'] as const)('org usage and quotas (%s storage)', (storageDriver) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: storageDriver });
  });
  afterAll(async () => stack?.stop());

  /** An org with two projects, each with an owner's key. */
  async function org(): Promise<{ first: StorageClient; second: StorageClient }> {
    const first = await stack.seed.project();
    const made = await stack.seed.admin.post<{ id: string }>(`/admin/v1/orgs/${first.orgId}/projects`, {
      name: 'Second',
      slug: `second-${randomBytes(4).toString('hex')}`,
    });
    expect(made.status).toBe(201);
    return { first: new StorageClient(stack, first), second: new StorageClient(stack, await stack.seed.member(first.orgId, made.body.id, 'owner')) };
  }
  const orgUsage = (client: StorageClient) => client.api.get(client.url('/org/usage'));
  const setOwn = (client: StorageClient, bytes: number | null) => client.api.request('PUT', client.url('/org/quota'), { bytes });
  const setOperator = (orgId: string, bytes: number | null) => stack.seed.admin.request('PUT', `/admin/v1/orgs/${orgId}/quota`, { bytes });
  const initiate = (client: StorageClient, path: string, bytes: Buffer) =>
    client.api.post(client.url('/files/upload/initiate'), { path, ...describeContent(bytes) });
  const signIn = async (userId: string): Promise<ApiClient> => {
    const link = await stack.seed.admin.post<{ url: string }>(`/admin/v1/users/${userId}/sign-in-links`);
    const res = await new ApiClient(stack.baseUrl).post('/api/v1/session', { token: new URL(link.body.url).hash.replace('#token=', '') });
    const cookie =
      res.headers
        .getSetCookie()
        .find((c) => c.startsWith('lode_session='))
        ?.split(';')[0] ?? '';
    return new ApiClient(stack.baseUrl, { cookie, 'x-csrf-token': res.body.csrfToken as string });
  };

  it("adds up its projects' usage, per project and by day, and no other org's", async () => {
    const { first, second } = await org();
    const other = new StorageClient(stack, await stack.seed.project());
    await first.push('a.bin', randomBytes(300));
    await first.pushBatch([
      { path: 'b.bin', bytes: randomBytes(200) },
      { path: 'c.bin', bytes: randomBytes(100) },
    ]);
    await second.push('d.bin', randomBytes(400));
    await second.lfsPush(randomBytes(50));
    await other.push('e.bin', randomBytes(1000));
    await stack.upload.usage.fold();
    await first.push('f.bin', randomBytes(10)); // not folded yet: counted all the same

    const recounts = await Promise.all([first, second].map((c) => stack.upload.usage.recount(c.project.projectId)));
    const sum = (key: keyof ReturnType<typeof figuresOf>) => recounts.reduce((total, r) => total + r[key], 0);
    const expected = { logicalBytes: sum('logicalBytes'), storedBytes: sum('storedBytes'), versions: sum('versions'), objects: sum('objects') };
    expect(expected.storedBytes).toBe(1060);

    const usage = await orgUsage(first);
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(figuresOf(usage.body)).toEqual(expected);
    expect(usage.body).toMatchObject({ orgId: first.project.orgId, quota: null, operatorBytes: null, orgBytes: null });
    expect(usage.body.projects.map((p: { projectId: string }) => p.projectId)).toEqual([first.project.projectId, second.project.projectId]);
    expect(figuresOf(usage.body.projects[0])).toEqual(figuresOf(recounts[0]));
    expect(usage.body.history.at(-1)).toMatchObject(expected);
    // The operator and a dashboard session of an owner read the same figures.
    const operator = await stack.seed.admin.get(`/admin/v1/orgs/${first.project.orgId}/usage`);
    expect(figuresOf(operator.body)).toEqual(expected);
    const session = await signIn(second.project.userId);
    expect(figuresOf((await session.get(`/api/v1/orgs/${first.project.orgId}/usage`)).body)).toEqual(expected);
    // Another org is another org's: not through a session (404), nor by key (its own org only).
    expect((await session.get(`/api/v1/orgs/${other.project.orgId}/usage`)).status).toBe(404);
    expect(figuresOf((await orgUsage(other)).body).storedBytes).toBe(1000);
    expect((await stack.seed.admin.get(`/admin/v1/orgs/${first.project.projectId}/usage`)).status).toBe(404);
    // Members do not read it.
    const member = new StorageClient(stack, await stack.seed.member(first.project.orgId, first.project.projectId, 'member'));
    expect((await orgUsage(member)).status).toBe(403);
  });

  it('is set by the operator, lower by owners only, and never by another org', async () => {
    const { first } = await org();
    const admin = new StorageClient(stack, await stack.seed.member(first.project.orgId, first.project.projectId, 'admin'));
    const member = new StorageClient(stack, await stack.seed.member(first.project.orgId, first.project.projectId, 'member'));
    const other = new StorageClient(stack, await stack.seed.project());
    expect((await setOperator(first.project.orgId, 1000)).body).toEqual({
      quota: { bytes: 1000, source: 'org_operator' },
      operatorBytes: 1000,
      orgBytes: null,
    });
    expect((await setOwn(member, 100)).status).toBe(403);
    expect((await setOwn(admin, 100)).status).toBe(403);
    const above = await setOwn(first, 2000);
    expect(above.status).toBe(400);
    expect(above.body).toMatchObject({ code: 'validation_failed', maximum: 1000, issues: [{ path: 'bytes' }] });
    expect((await setOwn(first, 600)).body).toEqual({ quota: { bytes: 600, source: 'org' }, operatorBytes: 1000, orgBytes: 600 });
    // Another org's owner sets their own org's, never this one's.
    expect((await setOwn(other, 5)).body.orgBytes).toBe(5);
    expect((await orgUsage(first)).body).toMatchObject({ quota: { bytes: 600, source: 'org' }, operatorBytes: 1000, orgBytes: 600 });
    // The dashboard's route: an owner's session sets it; another org's owner finds no such org.
    const session = await signIn(first.project.userId);
    expect((await session.request('PUT', `/api/v1/orgs/${first.project.orgId}/quota`, { bytes: 700 })).body.orgBytes).toBe(700);
    expect((await (await signIn(other.project.userId)).request('PUT', `/api/v1/orgs/${first.project.orgId}/quota`, { bytes: 1 })).status).toBe(404);
    expect((await setOwn(first, null)).body.quota).toEqual({ bytes: 1000, source: 'org_operator' });
    expect((await setOperator(first.project.projectId, 1)).status).toBe(404);
    for (const bad of [{ bytes: -1 }, { bytes: 1.5 }, {}]) expect((await first.api.request('PUT', first.url('/org/quota'), bad)).status).toBe(400);
  });

  it('refuses initiates in any project of the org past it, entry by entry, beside the project quota', async () => {
    const { first, second } = await org();
    await setOperator(first.project.orgId, 1000);
    const kept = randomBytes(700);
    await first.push('a.bin', kept);

    // The second project has no quota of its own: the org's stops it.
    const single = await initiate(second, 'b.bin', randomBytes(400));
    expect(single.status).toBe(507);
    expect(single.body).toMatchObject({ code: 'quota_exceeded', usedBytes: 700, requestedBytes: 400, quotaBytes: 1000, quotaSource: 'org_operator' });

    const batch = await second.api.post(second.url('/files/upload/initiate-batch'), {
      files: [
        { path: 'c.bin', ...describeContent(randomBytes(200)) },
        { path: 'd.bin', ...describeContent(randomBytes(200)) },
        { path: 'e.bin', ...describeContent(randomBytes(100)) },
      ],
    });
    const [c, d, e] = batch.body.results;
    expect(c.uploadUrl).toEqual(expect.any(String));
    expect(d).toMatchObject({ path: 'd.bin', code: 'quota_exceeded' });
    expect(d.error).toContain("organization's quota: 900 of 1000 bytes are used (org_operator quota)");
    expect(e.uploadUrl).toEqual(expect.any(String));
    // Content the project already holds stores nothing: it passes.
    expect((await initiate(first, 'again.bin', kept)).body).toMatchObject({ dedup: true });

    // The stricter applies: a project quota with less room is the one named.
    await stack.seed.admin.request('PUT', `/admin/v1/projects/${first.project.projectId}/quota`, { bytes: 750 });
    expect((await initiate(first, 'f.bin', randomBytes(100))).body).toMatchObject({ code: 'quota_exceeded', quotaSource: 'operator', quotaBytes: 750 });

    // Git LFS, per object.
    const lfs = await second.lfsPushStatuses(randomBytes(400));
    expect(lfs).toEqual({ batch: 200 });
    await setOperator(first.project.orgId, null);
    expect((await initiate(second, 'b.bin', randomBytes(400))).status).toBe(200);
  });

  it('never makes a commit of uploads already initiated half-succeed', async () => {
    const { second } = await org();
    const files = [randomBytes(400), randomBytes(400)];
    const forms = await Promise.all(files.map((bytes, i) => initiate(second, `level-${i}.umap`, bytes)));
    await Promise.all(forms.map((form, i) => fetch(form.body.uploadUrl, { method: 'PUT', headers: form.body.requiredHeaders, body: files[i] })));
    await setOperator(second.project.orgId, 100);
    const confirmed = await second.api.post(second.url('/files/upload/confirm-batch'), {
      files: forms.map((form, i) => ({ fileId: form.body.fileId, version: form.body.version, storageKey: form.body.storageKey, ...describeContent(files[i]) })),
    });
    expect(confirmed.body.results).toMatchObject([{ confirmed: true }, { confirmed: true }]);
    await second.commit(forms.map((form) => ({ fileId: form.body.fileId, version: form.body.version })));
    expect((await orgUsage(second)).body.storedBytes).toBe(800);
    expect((await initiate(second, 'more.bin', randomBytes(1))).status).toBe(507);
  });

  it('warns each project of the org once per crossing of 80 %', async () => {
    const { first, second } = await org();
    await setOperator(first.project.orgId, 1000);
    const feed = async (client: StorageClient) => (await client.feed('quota.warning')).map((event) => event.data);
    const settle = async () => {
      await stack.upload.usage.fold();
      return stack.upload.orgQuotas.warnCrossings();
    };
    // The other tests' orgs crossed theirs: their warnings go first.
    await settle();
    await first.push('a.bin', randomBytes(500));
    expect(await settle()).toBe(0);
    await second.push('b.bin', randomBytes(350));
    expect((await Promise.all([settle(), settle()])).reduce((a, b) => a + b, 0)).toBe(1);
    await second.push('c.bin', randomBytes(50));
    expect(await settle()).toBe(0);
    const warning = { scope: 'org', orgId: first.project.orgId, storedBytes: 850, quotaBytes: 1000, quotaSource: 'org_operator', percent: 85 };
    await expect.poll(() => feed(first), { timeout: 10_000 }).toEqual([warning]);
    await expect.poll(() => feed(second), { timeout: 10_000 }).toEqual([warning]);
  });
});
