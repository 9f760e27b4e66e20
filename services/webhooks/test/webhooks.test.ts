import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { describeContent, pushFile, type SeededProject } from '@lode/testkit';
import { seedConfirmedVersions, startTestStack } from '@lode/system/testing';
import { eventually, Receiver, withReceiver } from './receiver.ts';

describe.each(['local', 'nats'] as const)('webhooks (%s bus)', (bus) => {
  const harness = withReceiver(() => startTestStack({ bus }));

  const hooks = (p: SeededProject) => `/api/v1/projects/${p.projectId}/webhooks`;

  /** A project with a webhook to the receiver for `events`; the receiver verifies with its secret. */
  async function subscribed(events: string[]) {
    const owner = await harness.stack.seed.project();
    const created = await owner.api.post(hooks(owner), { url: harness.receiver.url, events, description: 'CI' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    harness.receiver.secret = created.body.secret;
    return { owner, hook: created.body as { id: string; secret: string } };
  }

  async function lockFile(p: SeededProject, path = `a-${randomBytes(3).toString('hex')}.bin`) {
    const file = await pushFile(p.api, p.projectId, path, randomBytes(32));
    const res = await p.api.post(`/api/v1/projects/${p.projectId}/locks`, { fileIds: [file.fileId] });
    expect(res.body.acquired).toHaveLength(1);
    return file;
  }

  it('are managed by org owners and admins: the secret is shown at creation and rotation only, members get 403', async () => {
    const owner = await harness.stack.seed.project();
    const created = await owner.api.post(hooks(owner), { url: 'https://ci.example.com/lode', events: ['commit.created', 'lock.acquired'] });
    expect(created).toMatchObject({
      status: 201,
      body: { url: 'https://ci.example.com/lode', events: ['commit.created', 'lock.acquired'], description: '', disabled: false },
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const id: string = created.body.id;

    const listed = await owner.api.get(hooks(owner));
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).not.toHaveProperty('secret');
    expect((await owner.api.get(`${hooks(owner)}/${id}`)).body).not.toHaveProperty('secret');

    const rotated = await owner.api.request('PATCH', `${hooks(owner)}/${id}`, { rotateSecret: true, events: ['branch.created'] });
    expect(rotated).toMatchObject({ status: 200, body: { events: ['branch.created'] } });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);

    const admin = await harness.stack.seed.member(owner.orgId, owner.projectId, 'admin');
    expect((await admin.api.get(hooks(admin))).status).toBe(200);
    const member = await harness.stack.seed.member(owner.orgId, owner.projectId, 'member');
    for (const res of [
      await member.api.get(hooks(member)),
      await member.api.post(hooks(member), { url: 'https://x.example.com', events: ['lock.acquired'] }),
      await member.api.delete(`${hooks(member)}/${id}`),
    ]) {
      expect(res).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    }

    for (const body of [
      { url: 'ftp://x.example.com', events: ['lock.acquired'] },
      { url: 'https://x.example.com', events: [] },
      { url: 'https://x.example.com', events: ['nope'] },
      {},
    ]) {
      expect(await owner.api.post(hooks(owner), body)).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    }
    expect((await owner.api.request('PATCH', `${hooks(owner)}/${id}`, {})).status).toBe(400);

    // Another project's webhook is unknown here, as is a malformed id.
    const other = await harness.stack.seed.project();
    expect((await other.api.get(`${hooks(other)}/${id}`)).status).toBe(404);
    expect((await owner.api.get(`${hooks(owner)}/not-a-uuid`)).status).toBe(404);

    expect((await owner.api.delete(`${hooks(owner)}/${id}`)).status).toBe(200);
    expect((await owner.api.get(`${hooks(owner)}/${id}`)).status).toBe(404);
  });

  it('are managed through the admin API too', async () => {
    const owner = await harness.stack.seed.project();
    const created = await harness.stack.seed.admin.post(`/admin/v1/projects/${owner.projectId}/webhooks`, {
      url: 'https://ops.example.com',
      events: ['branch.deleted'],
    });
    expect(created.status).toBe(201);
    expect((await owner.api.get(hooks(owner))).body.data.map((h: { id: string }) => h.id)).toEqual([created.body.id]);
    expect((await harness.stack.seed.admin.get(`/admin/v1/projects/${owner.projectId}/webhooks/${created.body.id}/deliveries`)).body).toEqual({
      data: [],
      nextCursor: null,
    });

    // A project that does not exist has no webhooks to list and can be given none.
    const unknown = `/admin/v1/projects/${randomUUID()}/webhooks`;
    for (const res of [
      await harness.stack.seed.admin.get(unknown),
      await harness.stack.seed.admin.post(unknown, { url: 'https://ops.example.com', events: ['branch.deleted'] }),
    ]) {
      expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
    }
    // As elsewhere in the admin API, a bad body is 400 before an unknown project is 404.
    expect(await harness.stack.seed.admin.post(unknown, { url: 'ftp://ops.example.com', events: ['branch.deleted'] })).toMatchObject({
      status: 400,
      body: { code: 'validation_failed' },
    });
  });

  it('deliver a lock taken through the API, signed per Standard Webhooks, and log the delivery', async () => {
    const { owner, hook } = await subscribed(['lock.acquired', 'lock.released']);
    const file = await lockFile(owner);
    const got = await eventually('lock.acquired delivered', () =>
      harness.receiver.delivered('lock.acquired').find((r) => JSON.parse(r.body).data.locks[0].fileId === file.fileId),
    );
    const event = JSON.parse(got.body);
    expect(event).toMatchObject({
      type: 'lock.acquired',
      projectId: owner.projectId,
      data: { locks: [{ fileId: file.fileId, path: file.path, userId: owner.userId }] },
    });
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(got.headers['webhook-signature']).toMatch(/^v1,/);
    // Verified with the library a user would use; the same body under another secret is refused.
    expect(() => new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(got.body, got.headers as Record<string, string>)).toThrow();

    await owner.api.delete(`/api/v1/projects/${owner.projectId}/locks`, { fileIds: [file.fileId] });
    const released = await eventually('lock.released delivered', () =>
      harness.receiver.delivered('lock.released').find((r) => JSON.parse(r.body).projectId === owner.projectId),
    );
    expect(JSON.parse(released.body).data).toMatchObject({ reason: 'released', releasedBy: { userId: owner.userId } });

    const log = await eventually('both deliveries logged as delivered', async () => {
      const res = await owner.api.get(`${hooks(owner)}/${hook.id}/deliveries`);
      return res.body.data.length === 2 && res.body.data.every((d: { status: string }) => d.status === 'delivered') && res.body.data;
    });
    expect(log[0]).toMatchObject({ eventType: 'lock.released', attempts: 1, lastStatus: 204, lastError: null, nextAttemptAt: null });
  });

  it('deliver a confirmed retention run as its audit record: who confirmed it, what it removed and what it frees', async () => {
    const { owner } = await subscribed(['retention.applied']);
    const project = `/api/v1/projects/${owner.projectId}`;
    await pushFile(owner.api, owner.projectId, 'Builds/game.pak', randomBytes(40));
    await pushFile(owner.api, owner.projectId, 'Builds/game.pak', randomBytes(60));
    expect((await owner.api.request('PUT', `${project}/retention`, { rules: [{ glob: 'Builds/**', keepLast: 1 }] })).status).toBe(200);
    const dry = await owner.api.post(`${project}/retention/dry-run`, {});
    const run = await owner.api.post(`${project}/retention/run`, { confirmToken: dry.body.confirmToken });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const got = await eventually('retention.applied delivered', () =>
      harness.receiver.delivered('retention.applied').find((r) => JSON.parse(r.body).projectId === owner.projectId),
    );
    expect(JSON.parse(got.body)).toEqual({
      id: got.headers['webhook-id'],
      type: 'retention.applied',
      projectId: owner.projectId,
      occurredAt: run.body.appliedAt,
      data: {
        runId: run.body.runId,
        trigger: 'run',
        by: { userId: owner.userId, userName: expect.any(String) },
        versionCount: 1,
        fileCount: 1,
        logicalBytes: 40,
        freedObjects: 1,
        freedBytes: 40,
        lockedFiles: 0,
        appliedAt: run.body.appliedAt,
      },
    });
  });

  it('retry 5xx and 429 (honouring Retry-After) until the endpoint recovers: each event is accepted exactly once', async () => {
    const { owner, hook } = await subscribed(['lock.acquired']);
    harness.receiver.answer = ({ attempt }) =>
      attempt === 1 ? { status: 503 } : attempt === 2 ? { status: 429, headers: { 'retry-after': '0' } } : attempt === 3 ? { status: 500 } : { status: 200 };
    try {
      const files = [await lockFile(owner), await lockFile(owner), await lockFile(owner)];
      const accepted = await eventually('three events accepted', () => {
        const mine = harness.receiver.delivered('lock.acquired').filter((r) => JSON.parse(r.body).projectId === owner.projectId);
        return mine.length >= 3 && mine;
      });
      expect(new Set(accepted.map((r) => r.id)).size).toBe(accepted.length);
      expect(accepted.map((r) => JSON.parse(r.body).data.locks[0].fileId).sort()).toEqual(files.map((f) => f.fileId).sort());
      // The receiver counts a request when it answers; the log records it right after.
      const log = await eventually('three deliveries logged as delivered', async () => {
        const res = await owner.api.get(`${hooks(owner)}/${hook.id}/deliveries`);
        return res.body.data.length === 3 && res.body.data.every((d: { status: string }) => d.status === 'delivered') && res.body.data;
      });
      for (const delivery of log) expect(delivery).toMatchObject({ status: 'delivered', attempts: 4, lastStatus: 200 });
    } finally {
      harness.receiver.answer = () => ({ status: 204 });
    }
  });

  it('disable an endpoint that answers 410 Gone, and a ping reaches a re-enabled one', async () => {
    const { owner, hook } = await subscribed(['lock.acquired']);
    harness.receiver.answer = () => ({ status: 410 });
    try {
      await lockFile(owner);
      const disabled = await eventually('webhook disabled', async () => {
        const res = await owner.api.get(`${hooks(owner)}/${hook.id}`);
        return res.body.disabled && res.body;
      });
      expect(disabled.disabledReason).toMatch(/410/);
      const log = await eventually('the 410 logged', async () => (await owner.api.get(`${hooks(owner)}/${hook.id}/deliveries`)).body.data[0]);
      expect(log).toMatchObject({ status: 'failed', lastStatus: 410, attempts: 1 });
    } finally {
      harness.receiver.answer = () => ({ status: 204 });
    }
    expect((await owner.api.request('PATCH', `${hooks(owner)}/${hook.id}`, { disabled: false })).body).toMatchObject({ disabled: false, disabledReason: null });
    const ping = await owner.api.post(`${hooks(owner)}/${hook.id}/ping`);
    expect(ping.status).toBe(202);
    const got = await eventually('ping delivered', () => harness.receiver.delivered('webhook.ping').find((r) => r.id === ping.body.eventId));
    expect(JSON.parse(got.body)).toMatchObject({ type: 'webhook.ping', projectId: owner.projectId, data: { webhookId: hook.id } });
  });

  it('keep delivering to other webhooks while one endpoint hangs, which holds at most 4 sends at once', async () => {
    const stuck = await Receiver.start();
    const slow = await harness.stack.seed.project();
    const created = await slow.api.post(hooks(slow), { url: stuck.url, events: ['lock.acquired'] });
    stuck.secret = created.body.secret;
    stuck.answer = () => 'hang';
    try {
      // More deliveries than the worker has slots, all due before the other webhook's.
      for (let i = 0; i < 30; i++) expect((await slow.api.post(`${hooks(slow)}/${created.body.id}/ping`)).status).toBe(202);
      await eventually('the hanging endpoint holding its sends', () => stuck.hanging >= 4);
      const { owner, hook } = await subscribed(['lock.acquired']);
      const ping = await owner.api.post(`${hooks(owner)}/${hook.id}/ping`);
      await eventually('the other webhook’s ping delivered', () => harness.receiver.delivered('webhook.ping').some((r) => r.id === ping.body.eventId));
      // Delivered while the hanging endpoint's first attempts were all still open (none had timed out),
      // and that endpoint never had more than its share of the slots.
      expect(stuck.abandoned).toBe(0);
      expect(stuck.maxHanging).toBe(4);
    } finally {
      await slow.api.delete(`${hooks(slow)}/${created.body.id}`);
      await stuck.stop();
    }
  });

  it('deliver commit.created with counts, the first entries and the files route, and branch.created and branch.deleted', async () => {
    const { owner } = await subscribed(['commit.created', 'branch.created', 'branch.deleted']);
    const file = await pushFile(owner.api, owner.projectId, 'level.umap', randomBytes(64));
    const commit = await owner.api.post(`/api/v1/projects/${owner.projectId}/commits`, {
      message: 'first',
      fileVersions: [{ fileId: file.fileId, version: file.version, action: 'add' }],
    });
    expect(commit.status, JSON.stringify(commit.body)).toBe(201);
    expect((await owner.api.post(`/api/v1/projects/${owner.projectId}/branches`, { name: 'feature' })).status).toBe(201);
    expect((await owner.api.delete(`/api/v1/projects/${owner.projectId}/branches/feature`)).status).toBe(200);
    const ofProject = (type: string) => harness.receiver.delivered(type).find((r) => JSON.parse(r.body).projectId === owner.projectId);
    const created = JSON.parse((await eventually('commit.created delivered', () => ofProject('commit.created'))).body);
    expect(created.data).toMatchObject({
      commitId: commit.body.id,
      branch: 'main',
      kind: 'commit',
      message: 'first',
      fileCount: 1,
      entriesTruncated: false,
      entries: [{ fileId: file.fileId, path: 'level.umap', action: 'add', version: file.version }],
      filesUrl: `/api/v1/projects/${owner.projectId}/commits/${commit.body.id}/files`,
    });
    expect((await owner.api.get(created.data.filesUrl)).status).toBe(200);
    expect(JSON.parse((await eventually('branch.created delivered', () => ofProject('branch.created'))).body).data).toEqual({
      name: 'feature',
      forkedFrom: 'main',
    });
    expect(JSON.parse((await eventually('branch.deleted delivered', () => ofProject('branch.deleted'))).body).data).toEqual({ name: 'feature' });
    expect(harness.receiver.refusedSignatures).toEqual([]);
  });

  it('deliver a commit of more than 100 files summarized (the first 100 entries, the rest through filesUrl), and a restore as kind restore', async () => {
    const { owner } = await subscribed(['commit.created']);
    const commits = `/api/v1/projects/${owner.projectId}/commits`;
    const files = await seedConfirmedVersions(harness.stack.databaseUrl, owner, 150);
    const big = await owner.api.post(commits, { message: 'many', fileVersions: files.map((f) => ({ fileId: f.fileId, version: 1, action: 'add' })) });
    expect(big.status, JSON.stringify(big.body)).toBe(201);
    const deliveredCommit = (commitId: string) => async () => {
      const found = harness.receiver.delivered('commit.created').find((r) => JSON.parse(r.body).data.commitId === commitId);
      return found && JSON.parse(found.body);
    };
    const summarized = await eventually('the big commit delivered', deliveredCommit(big.body.id));
    expect(summarized.data).toMatchObject({ kind: 'commit', fileCount: 150, entriesTruncated: true, filesUrl: `${commits}/${big.body.id}/files` });
    expect(summarized.data.entries.map((e: { fileId: string }) => e.fileId)).toEqual(files.slice(0, 100).map((f) => f.fileId));
    const rest = await owner.api.get(`${summarized.data.filesUrl}?limit=200`);
    expect(rest.body.data).toHaveLength(150);

    const first = await pushFile(owner.api, owner.projectId, 'level.umap', randomBytes(64));
    expect((await owner.api.post(commits, { message: 'v1', fileVersions: [{ fileId: first.fileId, version: first.version, action: 'add' }] })).status).toBe(
      201,
    );
    const second = await pushFile(owner.api, owner.projectId, 'level.umap', randomBytes(64));
    expect(
      (await owner.api.post(commits, { message: 'v2', fileVersions: [{ fileId: second.fileId, version: second.version, action: 'modify' }] })).status,
    ).toBe(201);
    const restored = await owner.api.post(`/api/v1/projects/${owner.projectId}/restore`, { files: [{ fileId: first.fileId, toVersion: first.version }] });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    const restore = await eventually('the restore delivered', deliveredCommit(restored.body.commitId));
    expect(restore.data).toMatchObject({
      kind: 'restore',
      message: 'Restore level.umap to version 1',
      fileCount: 1,
      entriesTruncated: false,
      entries: [{ fileId: first.fileId, action: 'modify', version: restored.body.restored[0].newVersion, sha256: first.sha256 }],
    });
  });

  it('deliver plugin.published to the project it was published through', async () => {
    const { owner } = await subscribed(['plugin.published']);
    const bytes = randomBytes(128);
    const versions = `/api/v1/projects/${owner.projectId}/plugins/exporter/versions`;
    const started = await owner.api.post(`${versions}/initiate`, { version: '1.2.0', ...describeContent(bytes) });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect((await fetch(started.body.uploadUrl, { method: 'PUT', headers: started.body.requiredHeaders, body: bytes })).status).toBe(200);
    const { sha256, size } = describeContent(bytes);
    expect((await owner.api.post(`${versions}/confirm`, { version: '1.2.0', storageKey: started.body.storageKey, sha256, size })).status).toBe(201);
    const got = await eventually('plugin.published delivered', () =>
      harness.receiver.delivered('plugin.published').find((r) => JSON.parse(r.body).projectId === owner.projectId),
    );
    expect(JSON.parse(got.body).data).toMatchObject({ name: 'exporter', version: '1.2.0', sha256, size, publishedBy: { userId: owner.userId } });
  });

  it('say why locks were released: forced by an admin, committed by their holder', async () => {
    const { owner } = await subscribed(['lock.released']);
    const admin = await harness.stack.seed.member(owner.orgId, owner.projectId, 'admin');
    const forced = await lockFile(owner);
    expect((await admin.api.delete(`/api/v1/projects/${owner.projectId}/locks`, { fileIds: [forced.fileId], force: true })).body.released).toHaveLength(1);
    const committed = await lockFile(owner);
    const commit = await owner.api.post(`/api/v1/projects/${owner.projectId}/commits`, {
      message: 'm',
      fileVersions: [{ fileId: committed.fileId, version: committed.version, action: 'add' }],
    });
    expect(commit.status, JSON.stringify(commit.body)).toBe(201);
    const releasedOf = (fileId: string) => () =>
      harness.receiver
        .delivered('lock.released')
        .map((r) => JSON.parse(r.body))
        .find((e) => e.projectId === owner.projectId && e.data.locks[0].fileId === fileId);
    expect((await eventually('the forced release', releasedOf(forced.fileId))).data).toMatchObject({
      reason: 'forced',
      releasedBy: { userId: admin.userId },
      locks: [{ userId: owner.userId }],
    });
    expect((await eventually('the committed release', releasedOf(committed.fileId))).data).toMatchObject({
      reason: 'committed',
      releasedBy: { userId: owner.userId },
    });
  });
});
