import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plugins, type EventOf } from '@lode/contracts';
import { describeContent, type ApiClient, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

const pluginsUrl = (p: SeededProject) => `/api/v1/projects/${p.projectId}/plugins`;
const versionsUrl = (p: SeededProject, name: string) => `${pluginsUrl(p)}/${encodeURIComponent(name)}/versions`;

async function initiate(p: SeededProject, name: string, version: string, bytes: Buffer, description?: string) {
  return p.api.post(`${versionsUrl(p, name)}/initiate`, { version, ...describeContent(bytes), ...(description === undefined ? {} : { description }) });
}

/** The whole publish as a client does it: initiate, PUT the bytes with requiredHeaders verbatim, confirm. */
async function publish(p: SeededProject, name: string, version: string, bytes: Buffer = randomBytes(256), description?: string) {
  const started = await initiate(p, name, version, bytes, description);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const put = await fetch(started.body.uploadUrl, { method: 'PUT', headers: started.body.requiredHeaders, body: bytes });
  expect(put.status).toBe(200);
  const { sha256, size } = describeContent(bytes);
  return p.api.post(`${versionsUrl(p, name)}/confirm`, { version, storageKey: started.body.storageKey, sha256, size });
}

/** Every page of a list, following nextCursor. */
async function allPages(api: ApiClient, url: string, limit: number): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: any } = await api.get(`${url}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return items;
}

describe.each([
  ['local', 'local'],
  ['nats', 's3'],
] as const)('shared plugins through the gateway (%s bus, %s storage)', (bus, storage) => {
  let stack: TestStack;
  let owner: SeededProject;
  /** A member of the same org, on another project of it: plugins are offered to every project of the org. */
  let member: SeededProject;
  const name = (tag: string) => `${tag}-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    stack = await startTestStack({ bus, storage });
    owner = await stack.seed.project();
    const project = await stack.seed.admin.post(`/admin/v1/orgs/${owner.orgId}/projects`, {
      name: 'Second game',
      slug: `second-${randomBytes(3).toString('hex')}`,
    });
    member = await stack.seed.member(owner.orgId, project.body.id, 'member');
  });
  afterAll(async () => stack?.stop());

  it('publishes a version, lists it to every project of the org, and serves the exact bytes', async () => {
    const plugin = name('exporter');
    const bytes = randomBytes(4096);
    const published: EventOf<typeof plugins.pluginPublished>[] = [];
    const consumer = await stack.events.consume(`test-${randomUUID().slice(0, 8)}`, plugins.pluginPublished, async (event) => {
      if (event.name === plugin) published.push(event);
    });

    const confirmed = await publish(owner, plugin, '1.0.0', bytes, 'Exports levels to glTF');
    expect(confirmed.status).toBe(201);
    const { sha256, size } = describeContent(bytes);
    expect(confirmed.body).toEqual({
      name: plugin,
      version: '1.0.0',
      sha256,
      size,
      description: 'Exports levels to glTF',
      publishedBy: { userId: owner.userId, userName: expect.any(String) },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      downloadUrl: expect.stringMatching(/^http/),
    });

    const listed = await member.api.get(pluginsUrl(member));
    expect(listed.status).toBe(200);
    expect(listed.body.data).toContainEqual({
      name: plugin,
      latestVersion: '1.0.0',
      description: 'Exports levels to glTF',
      updatedAt: confirmed.body.createdAt,
    });

    const versions = await member.api.get(versionsUrl(member, plugin));
    expect(versions.body).toEqual({ data: [{ ...confirmed.body, downloadUrl: expect.stringMatching(/^http/) }], nextCursor: null });
    const download = await fetch(versions.body.data[0].downloadUrl);
    expect(download.status).toBe(200);
    const downloaded = Buffer.from(await download.arrayBuffer());
    expect(createHash('sha256').update(downloaded).digest('hex')).toBe(sha256);

    // plugin.published leaves through the outbox once the version is recorded.
    const deadline = Date.now() + 30_000;
    while (published.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await consumer.stop();
    expect(published).toEqual([
      {
        orgId: owner.orgId,
        projectId: owner.projectId,
        name: plugin,
        version: '1.0.0',
        sha256,
        size,
        description: 'Exports levels to glTF',
        publishedBy: confirmed.body.publishedBy,
        createdAt: confirmed.body.createdAt,
      },
    ]);
  });

  it('orders versions newest first by semver precedence, through every page, and lists the newest', async () => {
    const plugin = name('shaders');
    for (const version of ['1.9.0', '1.10.0', '1.10.0-rc.1', '0.1.0', '1.10.0-beta.2', '1.10.0-beta.11', '1.2.0']) {
      expect((await publish(owner, plugin, version, randomBytes(32), `release ${version}`)).status).toBe(201);
    }
    const newestFirst = ['1.10.0', '1.10.0-rc.1', '1.10.0-beta.11', '1.10.0-beta.2', '1.9.0', '1.2.0', '0.1.0'];
    expect((await owner.api.get(versionsUrl(owner, plugin))).body.data.map((v: any) => v.version)).toEqual(newestFirst);
    expect((await allPages(member.api, versionsUrl(member, plugin), 2)).map((v) => v.version)).toEqual(newestFirst);
    // The newest by precedence, not the last published; its description is the list's.
    const listed = (await allPages(member.api, pluginsUrl(member), 1)).find((p) => p.name === plugin);
    expect(listed).toMatchObject({ latestVersion: '1.10.0', description: 'release 1.10.0' });
  });

  it('lists the org plugins by name through every page', async () => {
    const names = [name('zz-page'), name('aa-page'), name('mm-page')];
    for (const plugin of names) expect((await publish(owner, plugin, '1.0.0')).status).toBe(201);
    const listed = (await allPages(owner.api, pluginsUrl(owner), 2)).map((p) => p.name);
    expect(listed).toEqual([...listed].sort());
    expect(listed).toEqual(expect.arrayContaining(names));
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('lets only org owners and admins publish (403 forbidden for a member)', async () => {
    const plugin = name('tools');
    const bytes = randomBytes(64);
    const refused = await initiate(member, plugin, '1.0.0', bytes);
    expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden', message: expect.any(String) } });
    // Nor can a member confirm a publish an owner initiated.
    const started = await initiate(owner, plugin, '1.0.0', bytes);
    await fetch(started.body.uploadUrl, { method: 'PUT', headers: started.body.requiredHeaders, body: bytes });
    const { sha256, size } = describeContent(bytes);
    const stolen = await member.api.post(`${versionsUrl(member, plugin)}/confirm`, { version: '1.0.0', storageKey: started.body.storageKey, sha256, size });
    expect(stolen).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect((await member.api.get(versionsUrl(member, plugin))).status).toBe(404);

    const admin = await stack.seed.member(owner.orgId, owner.projectId, 'admin');
    expect((await publish(admin, plugin, '1.0.0', bytes)).status).toBe(201);
  });

  it('keeps versions immutable: 409 version_exists at initiate, and for the loser of two racing publishes', async () => {
    const plugin = name('immutable');
    const first = await publish(owner, plugin, '2.0.0');
    expect(first.status).toBe(201);
    // Build metadata takes no part in precedence: 2.0.0+build.7 is 2.0.0.
    for (const version of ['2.0.0', '2.0.0+build.7']) {
      expect(await initiate(owner, plugin, version, randomBytes(8))).toMatchObject({ status: 409, body: { code: 'version_exists' } });
    }

    const racers = await Promise.all(
      [randomBytes(100), randomBytes(100)].map(async (bytes) => {
        const started = await initiate(owner, plugin, '3.0.0', bytes);
        expect(started.status).toBe(200);
        await fetch(started.body.uploadUrl, { method: 'PUT', headers: started.body.requiredHeaders, body: bytes });
        return { version: '3.0.0', storageKey: started.body.storageKey, ...describeContent(bytes) };
      }),
    );
    const confirms = await Promise.all(racers.map(({ contentMd5: _, ...body }) => owner.api.post(`${versionsUrl(owner, plugin)}/confirm`, body)));
    expect(confirms.map((c) => c.status).sort()).toEqual([201, 409]);
    const winner = confirms.find((c) => c.status === 201);
    expect(confirms.find((c) => c.status === 409)?.body.code).toBe('version_exists');
    // A publish initiated before another one of its version was confirmed loses too, later.
    const late = randomBytes(20);
    const lateStart = await initiate(owner, plugin, '4.0.0', late);
    await fetch(lateStart.body.uploadUrl, { method: 'PUT', headers: lateStart.body.requiredHeaders, body: late });
    expect((await publish(owner, plugin, '4.0.0')).status).toBe(201);
    const { sha256, size } = describeContent(late);
    const lateConfirm = await owner.api.post(`${versionsUrl(owner, plugin)}/confirm`, {
      version: '4.0.0',
      storageKey: lateStart.body.storageKey,
      sha256,
      size,
    });
    expect(lateConfirm).toMatchObject({ status: 409, body: { code: 'version_exists' } });

    const versions = (await owner.api.get(versionsUrl(owner, plugin))).body.data;
    expect(versions.map((v: any) => v.version)).toEqual(['4.0.0', '3.0.0', '2.0.0']);
    expect(versions.slice(1).map((v: any) => v.sha256)).toEqual([winner?.body.sha256, first.body.sha256]);
  });

  it('answers a repeated confirm with the version it recorded', async () => {
    const plugin = name('retry');
    const bytes = randomBytes(50);
    const started = await initiate(owner, plugin, '1.0.0', bytes);
    await fetch(started.body.uploadUrl, { method: 'PUT', headers: started.body.requiredHeaders, body: bytes });
    const { sha256, size } = describeContent(bytes);
    const body = { version: '1.0.0', storageKey: started.body.storageKey, sha256, size };
    const once = await owner.api.post(`${versionsUrl(owner, plugin)}/confirm`, body);
    const twice = await owner.api.post(`${versionsUrl(owner, plugin)}/confirm`, body);
    expect(once.status).toBe(201);
    expect(twice).toMatchObject({ status: 201, body: { ...once.body, downloadUrl: expect.any(String) } });
  });

  it('records no version for bytes that differ from the declared SHA-256', async () => {
    const plugin = name('liar');
    // A lying client: MD5 and length describe the bytes it sends; the SHA-256 it declares does not.
    const actual = randomBytes(64);
    const declared = describeContent(randomBytes(64)).sha256;
    const started = await owner.api.post(`${versionsUrl(owner, plugin)}/initiate`, { version: '1.0.0', ...describeContent(actual), sha256: declared });
    expect(started.status).toBe(200);
    const put = await fetch(started.body.uploadUrl, { method: 'PUT', headers: started.body.requiredHeaders, body: actual });
    const confirm = await owner.api.post(`${versionsUrl(owner, plugin)}/confirm`, {
      version: '1.0.0',
      storageKey: started.body.storageKey,
      sha256: declared,
      size: 64,
    });
    // The local driver refuses the PUT itself; S3 stores it, and confirm refuses and removes it.
    if (storage === 's3') expect(put.status).toBe(200);
    if (put.status === 200) expect(confirm).toMatchObject({ status: 422, body: { code: 'content_mismatch' } });
    else expect(confirm).toMatchObject({ status: 409, body: { code: 'upload_incomplete' } });
    expect((await owner.api.get(versionsUrl(owner, plugin))).status).toBe(404);
    // The version is still free for honest bytes.
    expect((await publish(owner, plugin, '1.0.0', actual)).status).toBe(201);
  });

  it('collects a publish never confirmed, with its object, once its URL expired', async () => {
    const plugin = name('abandoned');
    const bytes = randomBytes(32);
    const started = await initiate(owner, plugin, '1.0.0', bytes);
    await fetch(started.body.uploadUrl, { method: 'PUT', headers: started.body.requiredHeaders, body: bytes });
    expect(await stack.storage.head(started.body.storageKey)).not.toBeNull();
    expect(await stack.collectReservations(Date.now() + 7 * 24 * 3_600_000)).toBeGreaterThanOrEqual(1);
    expect(await stack.storage.head(started.body.storageKey)).toBeNull();
    const { sha256, size } = describeContent(bytes);
    const confirm = await owner.api.post(`${versionsUrl(owner, plugin)}/confirm`, { version: '1.0.0', storageKey: started.body.storageKey, sha256, size });
    expect(confirm).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('never shows one org the plugins of another', async () => {
    const plugin = name('private');
    expect((await publish(owner, plugin, '1.0.0')).status).toBe(201);
    const started = await initiate(owner, plugin, '1.1.0', randomBytes(16));
    const stranger = await stack.seed.project();
    const listed = await stranger.api.get(pluginsUrl(stranger));
    expect(listed.body).toEqual({ data: [], nextCursor: null });
    expect(await stranger.api.get(versionsUrl(stranger, plugin))).toMatchObject({ status: 404, body: { code: 'not_found' } });
    // Nor confirm a publish of another org, nor page with another org's cursor.
    const content = describeContent(randomBytes(16));
    const confirm = await stranger.api.post(`${versionsUrl(stranger, plugin)}/confirm`, {
      version: '1.1.0',
      storageKey: started.body.storageKey,
      sha256: content.sha256,
      size: 16,
    });
    expect(confirm.status).toBe(404);
    const page = await owner.api.get(`${pluginsUrl(owner)}?limit=1`);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const replayed = await stranger.api.get(`${pluginsUrl(stranger)}?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`);
    expect(replayed).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    // Owning a plugin name in one org takes nothing from another: the stranger may publish it too.
    expect((await publish(stranger, plugin, '1.0.0')).status).toBe(201);
  });

  it('refuses bad names, versions and sizes with a 4xx naming the field', async () => {
    const bytes = randomBytes(8);
    for (const bad of ['Upper', '-dash-first', '.dot-first', 'a'.repeat(65), 'white space', 'ünïcode']) {
      expect(await initiate(owner, bad, '1.0.0', bytes), bad).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
      expect((await owner.api.get(versionsUrl(owner, bad))).status, bad).toBe(400);
    }
    expect((await initiate(owner, 'a'.repeat(64), '1.0.0', bytes)).status).toBe(200);
    for (const bad of ['v1.0.0', '1.0', '01.0.0', '1.0.0-', ' 1.0.0', '=1.0.0', '1.0.0-01', 'latest']) {
      expect(await initiate(owner, name('versions'), bad, bytes), bad).toMatchObject({
        status: 400,
        body: { code: 'validation_failed', message: expect.stringContaining('version') },
      });
    }
    const tooLarge = await owner.api.post(`${versionsUrl(owner, name('huge'))}/initiate`, { version: '1.0.0', ...describeContent(bytes), size: 6 * 1024 ** 3 });
    expect(tooLarge).toMatchObject({ status: 413, body: { code: 'file_too_large' } });
    expect((await owner.api.get(`${pluginsUrl(owner)}?cursor=forged`)).status).toBe(400);
  });
});
