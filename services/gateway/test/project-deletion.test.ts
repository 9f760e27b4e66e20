import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, describeContent, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { StorageClient } from './storage-helpers.ts';

/** The undo window of these stacks: long enough never to pass during a test; the purge test moves a deletion's time instead. */
const WINDOW_MS = 3_600_000;
/** The schemas of the services that hold a project's rows. */
const SCHEMAS = ['identity', 'files', 'commits', 'sync', 'locks', 'restore', 'webhooks'];

describe.each([
  { bus: 'local', storage: 'local' },
  { bus: 'nats', storage: 's3' },
] as const)('project deletion ($bus bus, $storage storage)', (mode) => {
  let stack: TestStack;
  let db: pg.Client;
  /** Every table of the services' schemas with a project_id column, as `schema.table`. */
  let projectTables: string[];

  beforeAll(async () => {
    stack = await startTestStack({
      ...mode,
      environment: { LODE_PROJECT_DELETE_WINDOW_MS: String(WINDOW_MS), LODE_PROJECT_PURGE_INTERVAL_MS: '100' },
    });
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    const { rows } = await db.query<{ name: string }>(
      `SELECT table_schema || '.' || table_name AS name FROM information_schema.columns
       WHERE column_name = 'project_id' AND table_schema = ANY ($1) ORDER BY 1`,
      [SCHEMAS],
    );
    projectTables = rows.map((r) => r.name);
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  /** How many rows each table holds of the project; tables holding none are left out. */
  async function rowsOf(projectId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of projectTables) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [projectId]);
      if (rows[0].n > 0) counts[table] = rows[0].n;
    }
    return counts;
  }

  /** Every storage key the upload service's rows name for the project. */
  async function storageKeysOf(projectId: string): Promise<string[]> {
    const { rows } = await db.query<{ key: string }>(
      `SELECT storage_key AS key FROM files.versions WHERE project_id = $1 AND storage_key IS NOT NULL
       UNION SELECT storage_key FROM files.blobs WHERE project_id = $1
       UNION SELECT storage_key FROM files.uploads WHERE project_id = $1
       UNION SELECT storage_key FROM files.lfs_uploads WHERE project_id = $1`,
      [projectId],
    );
    return rows.map((r) => r.key);
  }

  /** A dashboard session of the user: a client sending its cookie and CSRF token. */
  async function signIn(userId: string): Promise<ApiClient> {
    const link = await stack.seed.admin.post<{ url: string }>(`/admin/v1/users/${userId}/sign-in-links`);
    const token = new URL(link.body.url).hash.replace('#token=', '');
    const res = await new ApiClient(stack.baseUrl).post('/api/v1/session', { token });
    expect(res.status).toBe(201);
    const cookie =
      res.headers
        .getSetCookie()
        .find((c) => c.startsWith('lode_session='))
        ?.split(';')[0] ?? '';
    return new ApiClient(stack.baseUrl, { cookie, 'x-csrf-token': res.body.csrfToken as string });
  }

  /** Something of the project in every service: versions and commits (and the sync read model), a draft, a lock, a webhook, a restore, a Git LFS object, a quota, retention rules. */
  async function populate(project: SeededProject): Promise<void> {
    const client = new StorageClient(stack, project);
    const first = await client.push('Art/hero.bin', randomBytes(300));
    const second = await client.push('Art/hero.bin', randomBytes(200));
    await client.commit([first]);
    await client.commit([second]);
    await client.restore([{ fileId: first.fileId, toVersion: first.version }]);
    await client.lfsPush(randomBytes(150));
    await client.push('Pending/unconfirmed.bin', randomBytes(50)).catch(() => undefined);
    expect((await project.api.post(client.url('/drafts'), { message: 'draft' })).status).toBe(201);
    expect((await project.api.post(client.url('/locks'), { fileIds: [first.fileId] })).status).toBe(200);
    expect((await project.api.post(client.url('/webhooks'), { url: 'https://203.0.113.7/hook', events: ['commit.created'] })).status).toBe(201);
    expect((await project.api.request('PUT', client.url('/quota'), { bytes: 10_000_000 })).status).toBe(200);
    expect((await project.api.request('PUT', client.url('/retention'), { rules: [{ glob: 'Art/**', keepLast: 5 }] })).status).toBe(200);
    // The sync read model follows the commits' events: populated once its rows exist.
    await expect
      .poll(async () => Object.keys(await rowsOf(project.projectId)).filter((t) => t.startsWith('sync.')).length, { timeout: 20_000 })
      .toBeGreaterThan(0);
  }

  it('is refused to admins and members; the owner deletes, keys are refused, the project is hidden, and brought back whole', async () => {
    const owner = await stack.seed.project();
    const admin = await stack.seed.member(owner.orgId, owner.projectId, 'admin');
    const member = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const client = new StorageClient(stack, owner);
    const bytes = randomBytes(100);
    const pushed = await client.push('Docs/a.bin', bytes);
    await client.commit([pushed]);
    const projectPath = `/api/v1/projects/${owner.projectId}`;

    for (const refused of [admin, member]) expect((await refused.api.delete(projectPath)).body).toMatchObject({ code: 'forbidden' });
    const deleted = await owner.api.delete(projectPath);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ projectId: owner.projectId, orgId: owner.orgId });
    expect(Date.parse(deleted.body.purgeAfter) - Date.parse(deleted.body.deletedAt)).toBe(WINDOW_MS);

    // Every key of the project is refused at once on this gateway, for reads and writes alike.
    for (const caller of [owner, admin, member]) {
      const read = await caller.api.get(`${projectPath}/commits`);
      expect(read.status).toBe(410);
      expect(read.body).toMatchObject({ code: 'project_deleted', purgeAfter: deleted.body.purgeAfter });
    }
    expect((await owner.api.post(`${projectPath}/files/upload/initiate`, { path: 'x.bin', sha256: '0'.repeat(64), size: 1 })).status).toBe(410);
    expect((await owner.api.delete(projectPath)).status).toBe(410);
    expect((await stack.seed.admin.delete(`/admin/v1/projects/${owner.projectId}`)).body).toMatchObject({ code: 'project_deleted' });
    expect((await stack.seed.admin.post(`/admin/v1/projects/${owner.projectId}/keys`, { userId: owner.userId })).status).toBe(410);

    // Hidden from the members' lists; the owners see it as deleted, to bring it back; the operators see it all.
    const ownerSession = await signIn(owner.userId);
    const adminSession = await signIn(admin.userId);
    const listed = async (api: ApiClient) => (await api.get(`/api/v1/orgs/${owner.orgId}/projects`)).body.data as { id: string; deletedAt: string | null }[];
    expect(await listed(adminSession)).toEqual([]);
    expect(await listed(ownerSession)).toEqual([expect.objectContaining({ id: owner.projectId, deletedAt: deleted.body.deletedAt })]);
    expect((await adminSession.get(`${projectPath}/overview`)).body).toMatchObject({ code: 'project_deleted' });
    const operatorList = await stack.seed.admin.get(`/admin/v1/orgs/${owner.orgId}/projects`);
    expect(operatorList.body.data).toEqual([expect.objectContaining({ id: owner.projectId, purgeAfter: deleted.body.purgeAfter, purgedAt: null })]);

    // Only the owners bring it back; then every key works again and nothing is lost.
    expect((await adminSession.post(`${projectPath}/undelete`)).body).toMatchObject({ code: 'forbidden' });
    const restored = await ownerSession.post(`${projectPath}/undelete`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: owner.projectId, deletedAt: null, purgeAfter: null });
    expect((await ownerSession.post(`${projectPath}/undelete`)).body).toMatchObject({ code: 'project_not_deleted' });
    const log = await member.api.get(`${projectPath}/commits`);
    expect(log.status).toBe(200);
    expect(log.body.data).toHaveLength(1);
    const urls = await member.api.post(`${projectPath}/files/download-urls`, { files: [{ fileId: pushed.fileId }] });
    const object = await fetch(urls.body.results[0].downloadUrl);
    expect(Buffer.from(await object.arrayBuffer()).equals(bytes)).toBe(true);
    await client.commit([await client.push('Docs/b.bin', randomBytes(10))]);

    // The operators delete and bring back any project alike.
    expect((await stack.seed.admin.delete(`/admin/v1/projects/${owner.projectId}`)).status).toBe(200);
    expect((await owner.api.get(`${projectPath}/commits`)).status).toBe(410);
    expect((await stack.seed.admin.post(`/admin/v1/projects/${owner.projectId}/undelete`)).status).toBe(200);
    expect((await owner.api.get(`${projectPath}/commits`)).status).toBe(200);
  });

  it("keeps a deleted project in its org's usage and quota, marked, until its purge; a purged one neither shows nor counts", async () => {
    const owner = await stack.seed.project();
    const made = await stack.seed.admin.post<{ id: string }>(`/admin/v1/orgs/${owner.orgId}/projects`, {
      name: 'Doomed',
      slug: `doomed-${randomBytes(4).toString('hex')}`,
    });
    expect(made.status).toBe(201);
    const kept = new StorageClient(stack, owner);
    const doomed = new StorageClient(stack, await stack.seed.member(owner.orgId, made.body.id, 'owner'));
    await kept.push('a.bin', randomBytes(100));
    await doomed.push('b.bin', randomBytes(300));
    expect((await stack.seed.admin.request('PUT', `/admin/v1/orgs/${owner.orgId}/quota`, { bytes: 500 })).status).toBe(200);
    const orgUsage = async () => {
      const res = await kept.api.get(kept.url('/org/usage'));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const initiate = () => kept.api.post(kept.url('/files/upload/initiate'), { path: 'c.bin', ...describeContent(randomBytes(150)) });

    // Deleted, its storage stays until the purge: listed, marked, and counted against the org's quota.
    const deleted = await stack.seed.admin.delete(`/admin/v1/projects/${made.body.id}`);
    expect(deleted.status).toBe(200);
    expect(await orgUsage()).toMatchObject({
      storedBytes: 400,
      projects: [
        { projectId: made.body.id, storedBytes: 300, deletedAt: deleted.body.deletedAt, purgeAfter: deleted.body.purgeAfter },
        { projectId: owner.projectId, storedBytes: 100, deletedAt: null, purgeAfter: null },
      ],
    });
    expect((await initiate()).status).toBe(507);

    // Purged, its data is gone: the org's usage lists and counts its other project only, and the quota has room again.
    await db.query(`UPDATE identity.projects SET purge_after = now() WHERE id = $1`, [made.body.id]);
    await expect
      .poll(async () => (await orgUsage()).projects.map((p: { projectId: string }) => p.projectId), { timeout: 30_000, interval: 200 })
      .toEqual([owner.projectId]);
    expect(await orgUsage()).toMatchObject({ storedBytes: 100, projects: [{ projectId: owner.projectId, storedBytes: 100 }] });
    await expect.poll(async () => (await initiate()).status, { timeout: 30_000, interval: 500 }).toBe(200);
  });

  it('purges a deleted project past its window: every row of every service and every object go, other projects keep theirs', async () => {
    const doomed = await stack.seed.project();
    const keeper = await stack.seed.project();
    await populate(doomed);
    await populate(keeper);
    const doomedRows = await rowsOf(doomed.projectId);
    for (const schema of SCHEMAS)
      expect(
        Object.keys(doomedRows).some((t) => t.startsWith(`${schema}.`)),
        schema,
      ).toBe(true);
    const doomedKeys = await storageKeysOf(doomed.projectId);
    const keeperKeys = await storageKeysOf(keeper.projectId);
    expect((await stack.storage.headMany(doomedKeys)).filter((o) => o !== null).length).toBeGreaterThan(0);
    // Usage deltas are folded into totals in the background: folded now, the keeper's rows stay as they are.
    await stack.upload.usage.fold();
    const keeperRows = await rowsOf(keeper.projectId);
    const session = await signIn(doomed.userId);

    expect((await stack.seed.admin.delete(`/admin/v1/projects/${doomed.projectId}`)).status).toBe(200);
    // The window passes: as if it had been deleted that long ago.
    await db.query(`UPDATE identity.projects SET purge_after = now() WHERE id = $1`, [doomed.projectId]);

    await expect.poll(() => rowsOf(doomed.projectId), { timeout: 30_000, interval: 200 }).toEqual({});
    expect(await stack.storage.headMany(doomedKeys)).toEqual(doomedKeys.map(() => null));
    expect(await rowsOf(keeper.projectId)).toEqual(keeperRows);
    expect((await stack.storage.headMany(keeperKeys)).every((o) => o !== null)).toBe(true);
    expect((await keeper.api.get(`/api/v1/projects/${keeper.projectId}/commits`)).status).toBe(200);

    // The tombstone stays: its keys are gone, nothing brings it back, the operators see when it went.
    expect((await doomed.api.get(`/api/v1/projects/${doomed.projectId}/commits`)).body).toMatchObject({ code: 'invalid_key' });
    expect((await stack.seed.admin.post(`/admin/v1/projects/${doomed.projectId}/undelete`)).body).toMatchObject({ code: 'project_purged' });
    expect((await stack.seed.admin.delete(`/admin/v1/projects/${doomed.projectId}`)).body).toMatchObject({ code: 'project_purged' });
    const tombstone = (await stack.seed.admin.get(`/admin/v1/orgs/${doomed.orgId}/projects`)).body.data[0];
    expect(tombstone).toMatchObject({ id: doomed.projectId, purgedAt: expect.any(String) });
    // A member's dashboard session is told it is purged, and when, as the project's own routes tell it.
    for (const route of ['commits', 'overview']) {
      const read = await session.get(`/api/v1/projects/${doomed.projectId}/${route}`);
      expect(read.status, route).toBe(410);
      expect(read.body, route).toMatchObject({ code: 'project_purged', purgedAt: tombstone.purgedAt });
    }
  });
});
