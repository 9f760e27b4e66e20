import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sessions } from '@lode/contracts';
import { closeServer, listen } from '@lode/runtime';
import { storageSettings } from '@lode/storage';
import { ApiClient, freePort, recordSecret, testLogger, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { createGatewayApp, gatewaySettings, gatewayTuning, MemoryWriteLimiter, PROJECT_SERVICES } from '../src/index.ts';

/**
 * Signs a user in with a fresh one-time link: a client carrying the session cookie, one that also
 * sends the CSRF token, and the Set-Cookie lines of the sign-in.
 */
async function signIn(stack: TestStack, userId: string) {
  const token = await signInToken(stack.seed.admin, userId);
  const res = await new ApiClient(stack.baseUrl).post('/api/v1/session', { token });
  expect(res.status).toBe(201);
  const setCookies = res.headers.getSetCookie();
  expect(setCookies[0]).toMatch(/^lode_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax/);
  const browser = new ApiClient(stack.baseUrl, { cookie: setCookies[0].split(';')[0] });
  return {
    token,
    browser,
    api: browser.withHeaders({ 'x-csrf-token': res.body.csrfToken as string }),
    user: res.body.user,
    csrfToken: res.body.csrfToken as string,
    setCookies,
  };
}

/** A fresh one-time link's token, asked of the admin API at `admin`'s gateway. */
async function signInToken(admin: ApiClient, userId: string): Promise<string> {
  const link = await admin.post<{ url: string; expiresAt: string }>(`/admin/v1/users/${userId}/sign-in-links`);
  expect(link.status).toBe(201);
  return new URL(link.body.url).hash.replace('#token=', '');
}

describe.each(['local', 'nats'] as const)('dashboard sessions through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  let owner: SeededProject;
  let member: SeededProject;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
    owner = await stack.seed.project({ role: 'owner' });
    member = await stack.seed.member(owner.orgId, owner.projectId, 'member');
  });
  afterAll(async () => stack?.stop());

  it('spends a sign-in link once on a session that reads who is signed in, and refuses a reused or unknown link', async () => {
    const { token, api, user } = await signIn(stack, owner.userId);
    expect(user).toMatchObject({ id: owner.userId, email: null });
    expect(await api.get('/api/v1/session')).toMatchObject({ status: 200, body: { user: { id: owner.userId } } });
    const anonymous = new ApiClient(stack.baseUrl);
    expect(await anonymous.post('/api/v1/session', { token })).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect(await anonymous.post('/api/v1/session', { token: 'x'.repeat(43) })).toMatchObject({ status: 401 });
    expect(await anonymous.post('/api/v1/session', { token: 'short' })).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    expect(await anonymous.get('/api/v1/session')).toMatchObject({ status: 401 });
    expect(await anonymous.withHeaders({ cookie: 'lode_session=%%%; other=1' }).get('/api/v1/session')).toMatchObject({ status: 401 });
    expect(await stack.seed.admin.post('/admin/v1/users/00000000-0000-4000-8000-000000000000/sign-in-links')).toMatchObject({ status: 404 });
  });

  it('gives the CSRF token once, at sign-in, in the answer and a cookie page scripts can read; never again', async () => {
    const { api, csrfToken, setCookies } = await signIn(stack, owner.userId);
    expect(csrfToken).toMatch(sessions.TOKEN_PATTERN);
    const csrfCookie = setCookies.find((line) => line.startsWith('lode_csrf='));
    expect(csrfCookie).toMatch(new RegExp(`^lode_csrf=${csrfToken}; Path=/; SameSite=Lax; Max-Age=\\d+$`));
    const session = await api.get('/api/v1/session');
    expect(session.status).toBe(200);
    expect(JSON.stringify(session.body)).not.toContain(csrfToken);
    // The token, not its hash (which the gateway holds), is what a write must send.
    const base = `/api/v1/projects/${owner.projectId}`;
    expect(await api.post(`${base}/branches`, { name: 'by-token' })).toMatchObject({ status: 201 });
    expect(await api.post(`${base}/branches`, { name: 'by-hash' }, { 'x-csrf-token': sessions.tokenHash(csrfToken) })).toMatchObject({ status: 403 });
  });

  it('reaches the project API with the session as a key would, with CSRF on writes and other projects unknown', async () => {
    const { browser, api } = await signIn(stack, member.userId);
    const base = `/api/v1/projects/${owner.projectId}`;
    expect(await browser.get(`${base}/locks`)).toMatchObject({ status: 200, body: { data: [] } });
    expect(await browser.post(`${base}/branches`, { name: 'no-csrf' })).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await browser.post(`${base}/branches`, { name: 'csrf' }, { 'x-csrf-token': 'wrong' })).toMatchObject({ status: 403 });
    expect(await api.post(`${base}/branches`, { name: 'by-session' })).toMatchObject({ status: 201, body: { createdBy: { userId: member.userId } } });
    const other = await stack.seed.project();
    expect(await api.get(`/api/v1/projects/${other.projectId}/locks`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await api.get('/api/v1/projects/not-a-uuid/locks')).toMatchObject({ status: 404 });
    // Requests may write an id in either case (docs/api.md, Conventions).
    expect(await api.post(`/api/v1/projects/${owner.projectId.toUpperCase()}/branches`, { name: 'by-upper-id' })).toMatchObject({
      status: 201,
      body: { name: 'by-upper-id' },
    });
    // A key still wins over a cookie sent beside it, and needs no CSRF token.
    expect(
      await other.api.withHeaders({ cookie: browser.headers.cookie }).post(`/api/v1/projects/${other.projectId}/branches`, { name: 'by-key' }),
    ).toMatchObject({ status: 201 });
  });

  it('shows a member their orgs only, their own keys only, and refuses them what owners and admins may do', async () => {
    const { api } = await signIn(stack, member.userId);
    const outsider = await stack.seed.project();
    const orgs = await api.get('/api/v1/me/orgs');
    expect(orgs.body.data).toEqual([expect.objectContaining({ id: owner.orgId, role: 'member' })]);
    expect(await api.get(`/api/v1/orgs/${outsider.orgId}/projects`)).toMatchObject({ status: 404 });
    expect(await api.get(`/api/v1/projects/${outsider.projectId}/keys`)).toMatchObject({ status: 404 });
    expect((await api.get(`/api/v1/orgs/${owner.orgId}/projects`)).body.data).toEqual([expect.objectContaining({ id: owner.projectId })]);

    const keys = await api.get(`/api/v1/projects/${owner.projectId}/keys`);
    expect(keys.body.data.map((k: { userId: string }) => k.userId)).toEqual([member.userId]);
    const mine = await api.post(`/api/v1/projects/${owner.projectId}/keys`, {});
    expect(mine).toMatchObject({ status: 201, body: { userId: member.userId, key: expect.stringMatching(/^lode_/), lastUsedAt: null } });
    expect(await api.post(`/api/v1/projects/${owner.projectId}/keys`, { userId: owner.userId })).toMatchObject({ status: 403 });
    expect(await api.delete(`/api/v1/projects/${owner.projectId}/keys/${owner.keyId}`)).toMatchObject({ status: 404 });
    expect(await api.post(`/api/v1/orgs/${owner.orgId}/projects`, { name: 'Nope', slug: 'nope' })).toMatchObject({ status: 403 });
    expect(await api.post(`/api/v1/orgs/${owner.orgId}/members`, { userId: member.userId, role: 'admin' })).toMatchObject({ status: 403 });
    expect(await api.delete(`/api/v1/orgs/${owner.orgId}/members/${owner.userId}`)).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await api.request('PUT', `/api/v1/projects/${owner.projectId}/write-rate-limit`, { writeRateLimit: null })).toMatchObject({ status: 403 });
    const hook = { url: 'https://203.0.113.7/hook', events: ['commit.created'] };
    expect(await api.post(`/api/v1/projects/${owner.projectId}/webhooks`, hook)).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await api.get(`/api/v1/projects/${owner.projectId}/webhooks`)).toMatchObject({ status: 403 });
    // The project API's own rules hold for a session as for a key: a member may not force a lock.
    const fileId = '00000000-0000-4000-8000-000000000001';
    expect(await api.delete(`/api/v1/projects/${owner.projectId}/locks`, { fileIds: [fileId], force: true })).toMatchObject({
      status: 403,
      body: { code: 'forbidden' },
    });

    const revoked = await api.delete(`/api/v1/projects/${owner.projectId}/keys/${mine.body.id}`);
    expect(revoked).toMatchObject({ status: 200, body: { revokedAt: expect.any(String) } });
    expect(await new ApiClient(stack.baseUrl, { authorization: `Bearer ${mine.body.key}` }).post('/api/v1/auth/validate-key')).toMatchObject({ status: 401 });
  });

  it("lets an owner see and manage everyone's keys, members and settings, keeping one owner", async () => {
    const { api } = await signIn(stack, owner.userId);
    const base = `/api/v1/projects/${owner.projectId}`;
    const keys = (await api.get(`${base}/keys`)).body.data as { userId: string; userName: string }[];
    expect(new Set(keys.map((k) => k.userId))).toEqual(new Set([owner.userId, member.userId]));
    await owner.api.post('/api/v1/auth/validate-key');
    const used = (await api.get(`${base}/keys`)).body.data.find((k: { id: string }) => k.id === owner.keyId);
    expect(used).toMatchObject({ deviceBound: true, lastUsedAt: expect.any(String) });
    expect(await api.post(`${base}/keys/${owner.keyId}/reset-device`)).toMatchObject({ status: 200, body: { deviceBound: false } });
    expect(await api.post(`${base}/keys`, { userId: member.userId })).toMatchObject({ status: 201, body: { userId: member.userId } });

    const project = await api.post(`/api/v1/orgs/${owner.orgId}/projects`, { name: 'Second', slug: `second-${bus}` });
    expect(project).toMatchObject({ status: 201, body: { orgId: owner.orgId } });
    expect(await api.request('PUT', `/api/v1/projects/${project.body.id}/write-rate-limit`, { writeRateLimit: { perSecond: 5, burst: 10 } })).toMatchObject({
      status: 200,
      body: { writeRateLimit: { perSecond: 5, burst: 10 } },
    });
    expect(await api.get(`/api/v1/projects/${project.body.id}/overview`)).toMatchObject({ status: 200, body: { role: 'owner', org: { id: owner.orgId } } });

    expect(await api.post(`/api/v1/orgs/${owner.orgId}/members`, { userId: owner.userId, role: 'member' })).toMatchObject({
      status: 403,
      body: { message: /one owner/ },
    });
    const email = `bo-${bus}-${Date.now()}@example.com`;
    const bo = await stack.seed.admin.post('/admin/v1/users', { name: 'Bo', email });
    expect(bo).toMatchObject({ status: 201, body: { email } });
    // The operator adds Bo (people otherwise join by invitation: invitations.test.ts); a member's role changes by email.
    expect(await stack.seed.admin.post(`/admin/v1/orgs/${owner.orgId}/members`, { userId: bo.body.id, role: 'member' })).toMatchObject({ status: 201 });
    expect(await api.post(`/api/v1/orgs/${owner.orgId}/members`, { email: email.toUpperCase(), role: 'admin' })).toMatchObject({
      status: 200,
      body: { userId: bo.body.id, role: 'admin' },
    });
    const members = (await api.get(`/api/v1/orgs/${owner.orgId}/members`)).body.data as { userId: string }[];
    expect(members.map((m) => m.userId)).toContain(bo.body.id);
    expect(await api.delete(`/api/v1/orgs/${owner.orgId}/members/${bo.body.id}`)).toMatchObject({ status: 200, body: { removed: true } });
  });

  it.runIf(bus === 'local')(
    'behind a TLS proxy: sign-in links on LODE_PUBLIC_URL, and Secure cookies when a trusted proxy says https, never when anyone else does',
    async () => {
      const settings = z
        .object({ ...gatewaySettings, ...storageSettings })
        .parse({ LODE_PUBLIC_URL: 'https://lode.example.com/', LODE_TRUST_PROXY: 'loopback' });
      const { app } = createGatewayApp({
        bus: stack.bus,
        limiter: new MemoryWriteLimiter(),
        logger: testLogger('gateway-behind-proxy'),
        adminToken: stack.adminToken,
        services: PROJECT_SERVICES,
        ...gatewayTuning(settings),
      });
      const port = await freePort();
      const server = await listen(app, port, '127.0.0.1');
      try {
        const proxied = new ApiClient(`http://127.0.0.1:${port}`);
        const link = await proxied.withHeaders({ authorization: `Bearer ${stack.adminToken}` }).post(`/admin/v1/users/${owner.userId}/sign-in-links`);
        expect(link.body.url).toMatch(/^https:\/\/lode\.example\.com\/sign-in#token=[\w-]{43}$/);
        const cookieOf = async (client: ApiClient, admin: ApiClient, headers: Record<string, string>) =>
          (await client.post('/api/v1/session', { token: await signInToken(admin, owner.userId) }, headers)).headers.get('set-cookie');
        // The test's loopback connection is the trusted proxy here.
        expect(await cookieOf(proxied, stack.seed.admin, { 'x-forwarded-proto': 'https' })).toMatch(/; Secure$/);
        expect(await cookieOf(proxied, stack.seed.admin, {})).not.toMatch(/Secure/);
        // The stack's gateway trusts no proxy: the same header from its client changes nothing.
        expect(await cookieOf(new ApiClient(stack.baseUrl), stack.seed.admin, { 'x-forwarded-proto': 'https' })).not.toMatch(/Secure/);
      } finally {
        await closeServer(server);
      }
    },
  );

  it.runIf(bus === 'local')('sends a refused single sign-on back to the sign-in page with a code, never a message', async () => {
    const settings = z.object({ ...gatewaySettings, ...storageSettings }).parse({});
    const clientSecret = 'a-test-client-secret-of-enough-length';
    recordSecret('oidc client secret', clientSecret);
    const { app } = createGatewayApp({
      bus: stack.bus,
      limiter: new MemoryWriteLimiter(),
      logger: testLogger('gateway-oidc-refusal'),
      adminToken: stack.adminToken,
      services: PROJECT_SERVICES,
      ...gatewayTuning(settings),
      // Never reached: a callback no sign-in began in this browser is refused before the provider is asked.
      oidc: { issuer: 'http://127.0.0.1:9/', clientId: 'lode', clientSecret },
    });
    const port = await freePort();
    const server = await listen(app, port, '127.0.0.1');
    try {
      const stray = await fetch(`http://127.0.0.1:${port}/api/v1/session/oidc/callback?code=x&state=y`, { redirect: 'manual' });
      expect(stray.status).toBe(303);
      expect(stray.headers.get('location')).toBe('/sign-in#error=sign_in_failed');
    } finally {
      await closeServer(server);
    }
  });

  it('ends the session on sign-out: the cookie no longer reaches anything', async () => {
    const { browser, api } = await signIn(stack, owner.userId);
    expect(await browser.delete('/api/v1/session')).toMatchObject({ status: 403 });
    const out = await api.delete('/api/v1/session');
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()).toEqual([expect.stringMatching(/^lode_session=; .*Max-Age=0/), expect.stringMatching(/^lode_csrf=; .*Max-Age=0/)]);
    expect(await api.get('/api/v1/session')).toMatchObject({ status: 401 });
    expect(await api.get(`/api/v1/projects/${owner.projectId}/locks`)).toMatchObject({ status: 401 });
  });
});
