import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

interface Org {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
}
interface User {
  id: string;
  name: string;
  avatarUrl: string | null;
  createdAt: string;
}
interface Member {
  orgId: string;
  userId: string;
  role: string;
  createdAt: string;
}
interface Project {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  iconUrl: string | null;
  writeRateLimit: RateLimit | null;
  createdAt: string;
}
interface RateLimit {
  perSecond: number;
  burst: number;
}
interface Key {
  id: string;
  projectId: string;
  userId: string;
  hint: string;
  deviceBound: boolean;
  deviceId: string | null;
  deviceBoundAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}
interface NewKey extends Key {
  key: string;
}
interface Page<T> {
  data: T[];
  nextCursor: string | null;
}
interface Failure {
  code: string;
  message: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const tag = () => randomBytes(4).toString('hex');

describe('admin API', () => {
  let stack: TestStack;
  let admin: ApiClient;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
    admin = new ApiClient(stack.baseUrl, { authorization: `Bearer ${stack.adminToken}` });
  });
  afterAll(async () => stack?.stop());

  function created<T>(res: ApiResponse<T>): T {
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }
  const newOrg = async (slug = `org-${tag()}`) => created(await admin.post<Org>('/admin/v1/orgs', { name: `Org ${slug}`, slug }));
  const newUser = async () => created(await admin.post<User>('/admin/v1/users', { name: `User ${tag()}` }));
  const newProject = async (orgId: string, body: Record<string, unknown> = {}) =>
    created(await admin.post<Project>(`/admin/v1/orgs/${orgId}/projects`, { name: 'Game', slug: `game-${tag()}`, ...body }));
  const addMember = async (orgId: string, userId: string, role = 'member') =>
    created(await admin.post<Member>(`/admin/v1/orgs/${orgId}/members`, { userId, role }));
  const newKey = async (projectId: string, userId: string) => created(await admin.post<NewKey>(`/admin/v1/projects/${projectId}/keys`, { userId }));

  /** An org with a member who holds a key for one of its projects. */
  async function keyHolder() {
    const org = await newOrg();
    const project = await newProject(org.id);
    const user = await newUser();
    await addMember(org.id, user.id);
    return { org, project, user, key: await newKey(project.id, user.id) };
  }
  const validateKey = (key: string, deviceId?: string) =>
    new ApiClient(stack.baseUrl, { authorization: `Bearer ${key}`, ...(deviceId ? { 'x-device-id': deviceId } : {}) }).post<Failure>(
      '/api/v1/auth/validate-key',
    );

  describe('admin token', () => {
    it.each([
      ['no Authorization header', (): Record<string, string> => ({})],
      ['a wrong token', () => ({ authorization: 'Bearer not-the-admin-token' })],
      ['the token with a suffix', () => ({ authorization: `Bearer ${stack.adminToken}x` })],
      ['the right token under another scheme', () => ({ authorization: `Basic ${stack.adminToken}` })],
      ['an API key instead of the admin token', () => ({ authorization: `Bearer lode_${'x'.repeat(40)}` })],
    ])('answers 401 {code, message} for %s', async (_, headers) => {
      const client = new ApiClient(stack.baseUrl, headers());
      for (const res of [await client.get('/admin/v1/orgs'), await client.post('/admin/v1/orgs', { name: 'X', slug: `x-${tag()}` })]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ code: 'unauthorized', message: expect.any(String) });
      }
    });

    it('creates nothing for a caller without the token', async () => {
      const slug = `sneaky-${tag()}`;
      await new ApiClient(stack.baseUrl, { authorization: 'Bearer wrong' }).post('/admin/v1/orgs', { name: 'Sneaky', slug });
      const all = await admin.get<Page<Org>>('/admin/v1/orgs?limit=200');
      expect(all.body.data.map((o) => o.slug)).not.toContain(slug);
    });
  });

  describe('orgs', () => {
    it('creates an org: 201 {id, name, slug, createdAt}', async () => {
      const slug = `acme-${tag()}`;
      const res = await admin.post<Org>('/admin/v1/orgs', { name: 'Acme Games', slug });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.stringMatching(UUID), name: 'Acme Games', slug, createdAt: expect.stringMatching(ISO) });
    });

    it('refuses a taken slug with 409 slug_taken', async () => {
      const org = await newOrg();
      const res = await admin.post<Failure>('/admin/v1/orgs', { name: 'Someone else', slug: org.slug });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 'slug_taken', message: expect.stringContaining(org.slug) });
    });

    it.each([
      ['a missing name', { slug: 'fine-slug' }],
      ['a blank name', { name: '   ', slug: 'fine-slug' }],
      ['a missing slug', { name: 'Acme' }],
      ['an uppercase slug', { name: 'Acme', slug: 'Acme' }],
      ['a slug with a space', { name: 'Acme', slug: 'acme games' }],
      ['a slug with an underscore', { name: 'Acme', slug: 'acme_games' }],
      ['a leading hyphen', { name: 'Acme', slug: '-acme' }],
      ['a trailing hyphen', { name: 'Acme', slug: 'acme-' }],
      ['a 65-character slug', { name: 'Acme', slug: 'a'.repeat(65) }],
      ['a numeric slug', { name: 'Acme', slug: 42 }],
    ])('answers 400 validation_failed for %s', async (_, body) => {
      const res = await admin.post<Failure>('/admin/v1/orgs', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', message: expect.any(String) });
    });

    it('accepts the shortest and longest valid slugs', async () => {
      for (const slug of ['z', `${tag()}${'x'.repeat(56)}`]) {
        expect((await admin.post<Org>('/admin/v1/orgs', { name: 'Edge', slug })).status).toBe(201);
      }
    });

    it('answers 400 invalid_json for a body that is not JSON', async () => {
      const res = await admin.post<Failure>('/admin/v1/orgs', '{"name":', { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_json' });
    });
  });

  describe('users', () => {
    it('creates a user with or without an avatar', async () => {
      const plain = await admin.post<User>('/admin/v1/users', { name: 'Ada' });
      expect(plain.status).toBe(201);
      expect(plain.body).toEqual({ id: expect.stringMatching(UUID), name: 'Ada', avatarUrl: null, email: null, createdAt: expect.stringMatching(ISO) });
      const avatarUrl = 'https://cdn.example.com/ada.png';
      expect((await admin.post<User>('/admin/v1/users', { name: 'Ada', avatarUrl })).body.avatarUrl).toBe(avatarUrl);
    });

    it.each([
      ['a missing name', {}],
      ['an avatar that is not a URL', { name: 'Ada', avatarUrl: 'not a url' }],
    ])('answers 400 validation_failed for %s', async (_, body) => {
      const res = await admin.post<Failure>('/admin/v1/users', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    });

    it("sets, changes and clears a user's email (PATCH), one user per address ignoring case", async () => {
      const [ada, bo] = [await newUser(), await newUser()];
      const email = `ada-${tag()}@studio.example`;
      const patch = (userId: string, body: unknown) => admin.request<User & Failure>('PATCH', `/admin/v1/users/${userId}`, body);
      expect(await patch(ada.id, { email })).toMatchObject({ status: 200, body: { ...ada, email } });
      expect(await patch(bo.id, { email: email.toUpperCase() })).toMatchObject({ status: 409, body: { code: 'conflict' } });
      expect(await patch(ada.id, { email: null })).toMatchObject({ status: 200, body: { id: ada.id, email: null } });
      expect(await patch(bo.id, { email: email.toUpperCase() })).toMatchObject({ status: 200, body: { id: bo.id, email: email.toUpperCase() } });
      expect(await patch(randomUUID(), { email: `x-${tag()}@studio.example` })).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect(await patch('not-a-uuid', { email: null })).toMatchObject({ status: 404 });
      for (const body of [{}, { email: 'not an email' }]) expect(await patch(ada.id, body)).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    });
  });

  describe('members', () => {
    it('adds a member (201) and changes the role when the same user is added again', async () => {
      const org = await newOrg();
      const user = await newUser();
      const first = await admin.post<Member>(`/admin/v1/orgs/${org.id}/members`, { userId: user.id, role: 'member' });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ orgId: org.id, userId: user.id, role: 'member', createdAt: expect.stringMatching(ISO) });
      const again = await addMember(org.id, user.id, 'admin');
      expect(again).toEqual({ ...first.body, role: 'admin' });
      const list = await admin.get<Page<Member>>(`/admin/v1/orgs/${org.id}/members`);
      expect(list.body).toEqual({ data: [again], nextCursor: null });
    });

    it('answers 404 for an unknown user, an unknown org, or a malformed org id', async () => {
      const org = await newOrg();
      const user = await newUser();
      for (const [orgId, userId] of [
        [org.id, randomUUID()],
        [randomUUID(), user.id],
        ['not-a-uuid', user.id],
      ]) {
        const res = await admin.post<Failure>(`/admin/v1/orgs/${orgId}/members`, { userId, role: 'owner' });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ code: 'not_found', message: expect.any(String) });
      }
    });

    it.each([
      ['an unknown role', { role: 'boss' }],
      ['a malformed user id', { userId: 'nope' }],
    ])('answers 400 validation_failed for %s', async (_, override) => {
      const org = await newOrg();
      const user = await newUser();
      const res = await admin.post<Failure>(`/admin/v1/orgs/${org.id}/members`, { userId: user.id, role: 'member', ...override });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    });
  });

  describe('projects', () => {
    it('creates a project: 201 with the default rate limit (null) and no icon', async () => {
      const org = await newOrg();
      const res = await admin.post<Project>(`/admin/v1/orgs/${org.id}/projects`, { name: 'Forest', slug: 'forest' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        orgId: org.id,
        name: 'Forest',
        slug: 'forest',
        iconUrl: null,
        writeRateLimit: null,
        createdAt: expect.stringMatching(ISO),
        deletedAt: null,
        purgeAfter: null,
        purgedAt: null,
      });
    });

    it('echoes back an icon and a writeRateLimit {perSecond, burst}', async () => {
      const org = await newOrg();
      const body = { iconUrl: 'https://cdn.example.com/forest.png', writeRateLimit: { perSecond: 2.5, burst: 40 } };
      expect(await newProject(org.id, body)).toMatchObject(body);
    });

    it('keeps slugs unique per org: 409 slug_taken in the same org, 201 in another', async () => {
      const [a, b] = [await newOrg(), await newOrg()];
      await newProject(a.id, { slug: 'shared' });
      const clash = await admin.post<Failure>(`/admin/v1/orgs/${a.id}/projects`, { name: 'Again', slug: 'shared' });
      expect(clash.status).toBe(409);
      expect(clash.body).toEqual({ code: 'slug_taken', message: expect.stringContaining('shared') });
      expect((await admin.post<Project>(`/admin/v1/orgs/${b.id}/projects`, { name: 'Again', slug: 'shared' })).status).toBe(201);
    });

    it.each([
      ['a missing name', { slug: 'fine' }],
      ['an invalid slug', { name: 'Forest', slug: 'Forest!' }],
      ['an icon that is not a URL', { name: 'Forest', slug: 'fine', iconUrl: 'forest.png' }],
      ['a zero rate', { name: 'Forest', slug: 'fine', writeRateLimit: { perSecond: 0, burst: 1 } }],
      ['a fractional burst', { name: 'Forest', slug: 'fine', writeRateLimit: { perSecond: 1, burst: 1.5 } }],
      ['a rate without a burst', { name: 'Forest', slug: 'fine', writeRateLimit: { perSecond: 1 } }],
    ])('answers 400 validation_failed for %s', async (_, body) => {
      const org = await newOrg();
      const res = await admin.post<Failure>(`/admin/v1/orgs/${org.id}/projects`, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    });

    it('answers 404 for a project in an unknown org', async () => {
      const res = await admin.post<Failure>(`/admin/v1/orgs/${randomUUID()}/projects`, { name: 'Forest', slug: 'forest' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: expect.any(String) });
    });
  });

  describe('keys', () => {
    it('issues a key only to a member of the project org (400 otherwise)', async () => {
      const org = await newOrg();
      const project = await newProject(org.id);
      const outsider = await newUser();
      const refused = await admin.post<Failure>(`/admin/v1/projects/${project.id}/keys`, { userId: outsider.id });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'validation_failed' });
      // A member of another org is still an outsider here.
      const elsewhere = await newOrg();
      await addMember(elsewhere.id, outsider.id, 'owner');
      expect((await admin.post(`/admin/v1/projects/${project.id}/keys`, { userId: outsider.id })).status).toBe(400);

      await addMember(org.id, outsider.id, 'member');
      expect((await admin.post(`/admin/v1/projects/${project.id}/keys`, { userId: outsider.id })).status).toBe(201);
    });

    it('answers 404 for keys of an unknown project', async () => {
      const user = await newUser();
      const create = await admin.post<Failure>(`/admin/v1/projects/${randomUUID()}/keys`, { userId: user.id });
      expect(create.body).toMatchObject({ code: 'not_found' });
      expect((await admin.get(`/admin/v1/projects/${randomUUID()}/keys`)).status).toBe(404);
    });

    it('returns the key once, at creation, and never in a list, revoke or reset answer', async () => {
      const { project, user, key } = await keyHolder();
      expect(key).toEqual({
        id: expect.stringMatching(UUID),
        projectId: project.id,
        userId: user.id,
        key: expect.stringMatching(/^lode_[0-9A-Za-z]{40}$/),
        hint: `lode_…${key.key.slice(-4)}`,
        deviceBound: false,
        deviceId: null,
        deviceBoundAt: null,
        createdAt: expect.stringMatching(ISO),
        revokedAt: null,
      });
      const { key: _secret, ...listed } = key;
      const list = await admin.get<Page<Key>>(`/admin/v1/projects/${project.id}/keys`);
      expect(list.body).toEqual({ data: [listed], nextCursor: null });
      const reset = await admin.post(`/admin/v1/keys/${key.id}/reset-device`);
      const revoked = await admin.delete(`/admin/v1/keys/${key.id}`);
      for (const res of [list, reset, revoked]) {
        expect(res.status).toBe(200);
        expect(JSON.stringify(res.body)).not.toContain(key.key);
        expect(JSON.stringify(res.body)).not.toContain('"key"');
      }
    });

    it('stops a revoked key at validate-key (401 key_revoked) and keeps the first revocation time', async () => {
      const { key } = await keyHolder();
      expect((await validateKey(key.key)).status).toBe(200);
      const revoked = await admin.delete<Key>(`/admin/v1/keys/${key.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ id: key.id, revokedAt: expect.stringMatching(ISO) });
      const res = await validateKey(key.key);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ valid: false, code: 'key_revoked' });
      const again = await admin.delete<Key>(`/admin/v1/keys/${key.id}`);
      expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
    });

    it('lets a new device bind after reset-device, and refuses the old one', async () => {
      const { project, key } = await keyHolder();
      expect((await validateKey(key.key, 'laptop')).status).toBe(200);
      expect((await admin.get<Page<Key>>(`/admin/v1/projects/${project.id}/keys`)).body.data[0]?.deviceBound).toBe(true);
      expect((await validateKey(key.key, 'desktop')).body).toMatchObject({ code: 'device_mismatch' });

      const reset = await admin.post<Key>(`/admin/v1/keys/${key.id}/reset-device`);
      expect(reset.status).toBe(200);
      expect(reset.body).toMatchObject({ id: key.id, deviceBound: false, revokedAt: null });
      expect((await validateKey(key.key, 'desktop')).status).toBe(200);
      expect((await validateKey(key.key, 'laptop')).status).toBe(403);
    });

    it("lists the bound device's name and when it was bound, both null while unbound", async () => {
      const { project, key } = await keyHolder();
      const listed = async () => (await admin.get<Page<Key>>(`/admin/v1/projects/${project.id}/keys`)).body.data[0];
      expect(await listed()).toMatchObject({ deviceBound: false, deviceId: null, deviceBoundAt: null });

      const before = Date.now();
      expect((await validateKey(key.key, 'ada-workstation')).status).toBe(200);
      const bound = await listed();
      expect(bound).toMatchObject({ deviceBound: true, deviceId: 'ada-workstation', deviceBoundAt: expect.stringMatching(ISO) });
      // Postgres's clock and this process's are one machine's: the binding happened during the call, give or take a second.
      expect(Date.parse(bound.deviceBoundAt ?? '')).toBeGreaterThan(before - 1000);
      expect(Date.parse(bound.deviceBoundAt ?? '')).toBeLessThan(Date.now() + 1000);

      const reset = await admin.post<Key>(`/admin/v1/keys/${key.id}/reset-device`);
      expect(reset.body).toMatchObject({ deviceBound: false, deviceId: null, deviceBoundAt: null });
      expect(await listed()).toEqual(reset.body);
    });

    it.each(['DELETE /admin/v1/keys/:id', 'POST /admin/v1/keys/:id/reset-device'])('answers 404 for %s of an unknown or malformed key', async (route) => {
      const [method, template] = route.split(' ') as [string, string];
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const res = await admin.request<Failure>(method, template.replace(':id', id));
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ code: 'not_found', message: expect.any(String) });
      }
    });
  });

  describe('keyset pagination {data, nextCursor}', () => {
    /** Follows nextCursor from the first page to the last, keeping every page's size. */
    async function walk<T>(path: string, limit: number): Promise<{ rows: T[]; sizes: number[] }> {
      const rows: T[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const query: URLSearchParams = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
        const res: ApiResponse<Page<T>> = await admin.get<Page<T>>(`${path}?${query.toString()}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        rows.push(...res.body.data);
        sizes.push(res.body.data.length);
        cursor = res.body.nextCursor;
      } while (cursor && sizes.length < 100);
      return { rows, sizes };
    }

    type Row = { id?: string; userId?: string };
    const rowId = (r: Row) => r.id ?? r.userId;
    const five = <T>(make: () => Promise<T>) => Promise.all([1, 2, 3, 4, 5].map(make));

    /** Each list, with a way to add five rows to it; they are made concurrently so that timestamps collide. */
    const lists: [string, () => Promise<{ path: string; made: string[] }>][] = [
      ['orgs', async () => ({ path: '/admin/v1/orgs', made: (await five(() => newOrg())).map((o) => o.id) })],
      ['users', async () => ({ path: '/admin/v1/users', made: (await five(newUser)).map((u) => u.id) })],
      [
        'members',
        async () => {
          const org = await newOrg();
          const users = await five(newUser);
          await Promise.all(users.map((u) => addMember(org.id, u.id)));
          return { path: `/admin/v1/orgs/${org.id}/members`, made: users.map((u) => u.id) };
        },
      ],
      [
        'projects',
        async () => {
          const org = await newOrg();
          return { path: `/admin/v1/orgs/${org.id}/projects`, made: (await five(() => newProject(org.id))).map((p) => p.id) };
        },
      ],
      [
        'keys',
        async () => {
          const { project, user, key } = await keyHolder();
          const more = await Promise.all([1, 2, 3, 4].map(() => newKey(project.id, user.id)));
          return { path: `/admin/v1/projects/${project.id}/keys`, made: [key.id, ...more.map((k) => k.id)] };
        },
      ],
    ];

    it.each(lists)('walks every %s page with limit=2 without duplicates or gaps', async (_, make) => {
      const { path, made } = await make();
      const whole = await admin.get<Page<Row>>(`${path}?limit=200`);
      expect(whole.body.nextCursor).toBeNull();
      const { rows, sizes } = await walk<Row>(path, 2);
      const ids = rows.map(rowId);
      expect(ids).toEqual(whole.body.data.map(rowId)); // same rows, same order: nothing skipped or repeated
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expect.arrayContaining(made));
      expect(sizes.slice(0, -1).every((n) => n === 2)).toBe(true);
      expect(sizes.at(-1)).toBeGreaterThan(0); // a full last page does not leave an empty one behind
    });

    it('answers 400 validation_failed for a tampered, forged or garbage cursor', async () => {
      await Promise.all([newOrg(), newOrg(), newOrg()]);
      const first = await admin.get<Page<Org>>('/admin/v1/orgs?limit=1');
      const cursor = first.body.nextCursor!;
      const [body, mac] = cursor.split('.') as [string, string];
      const position = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as string[];
      const edited = Buffer.from(JSON.stringify([position[0], randomUUID()])).toString('base64url');
      const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
      for (const bad of [`${edited}.${mac}`, `${body}.${flipped}`, body, 'garbage', `${edited}.`]) {
        const res = await admin.get<Failure>(`/admin/v1/orgs?limit=1&cursor=${encodeURIComponent(bad)}`);
        expect(res.status, bad).toBe(400);
        expect(res.body).toMatchObject({ code: 'validation_failed' });
      }
      expect((await admin.get(`/admin/v1/orgs?limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    });

    it.each(['0', '201', '-1', '1.5', 'ten', ''])('answers 400 validation_failed for limit=%j', async (limit) => {
      const res = await admin.get<Failure>(`/admin/v1/orgs?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    });

    it('accepts limit=1 and limit=200', async () => {
      for (const limit of [1, 200]) {
        const res = await admin.get<Page<Org>>(`/admin/v1/orgs?limit=${limit}`);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(limit);
      }
    });
  });
});

describe('admin cursors and scoping (regressions)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
  });
  afterAll(async () => stack?.stop());

  it("refuses one list's cursor on another list with 400, never 500", async () => {
    const p = await stack.seed.project();
    await stack.seed.member(p.orgId, p.projectId, 'member');
    const members = await stack.seed.admin.get(`/admin/v1/orgs/${p.orgId}/members?limit=1`);
    expect(members.body.nextCursor).toEqual(expect.any(String));
    const misuse = await stack.seed.admin.get(`/admin/v1/orgs?cursor=${encodeURIComponent(members.body.nextCursor)}`);
    expect(misuse.status).toBe(400);
    expect(misuse.body.code).toBe('validation_failed');
  });

  it('answers 404 for members and projects of an organization that does not exist', async () => {
    for (const list of ['members', 'projects']) {
      expect((await stack.seed.admin.get(`/admin/v1/orgs/${crypto.randomUUID()}/${list}`)).status).toBe(404);
    }
  });

  it('accepts only http(s) image URLs', async () => {
    const res = await stack.seed.admin.post('/admin/v1/users', { name: 'Mallory', avatarUrl: 'javascript:alert(1)' });
    expect(res.status).toBe(400);
  });
});
