import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '@lode/db';
import { ApiClient, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

/**
 * A user joins another organization only by accepting an invitation to their email: owners and admins
 * invite, never add directly, and nothing they are answered tells whether an address or id belongs
 * to a user elsewhere.
 */
describe('invitations to an organization (nats bus)', () => {
  let stack: TestStack;
  let owner: SeededProject;
  let member: SeededProject;
  let outsider: SeededProject;
  let identityDb: Database;
  let ownerApi: ApiClient;

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
  const address = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;
  /** A user with this email who belongs to no organization, signed in. */
  async function person(name: string): Promise<{ userId: string; email: string; api: ApiClient }> {
    const email = address(name);
    const user = await stack.seed.admin.post<{ id: string }>('/admin/v1/users', { name, email });
    expect(user.status).toBe(201);
    return { userId: user.body.id, email, api: await signIn(user.body.id) };
  }
  const invite = (api: ApiClient, email: string, role = 'member') => api.post(`/api/v1/orgs/${owner.orgId}/invitations`, { email, role });

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'nats' });
    owner = await stack.seed.project({ role: 'owner' });
    member = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    outsider = await stack.seed.project({ role: 'owner' });
    identityDb = new Database({ connectionString: stack.databaseUrl, schema: 'identity', max: 1 });
    ownerApi = await signIn(owner.userId);
  });
  afterAll(async () => {
    await identityDb?.close();
    await stack?.stop();
  });

  it("refuses to add another org's user directly, by id or by email, answering exactly as for nobody, and then to make them a key", async () => {
    const known = address('known');
    expect(await stack.seed.admin.request('PATCH', `/admin/v1/users/${outsider.userId}`, { email: known })).toMatchObject({ status: 200 });
    const byId = await ownerApi.post(`/api/v1/orgs/${owner.orgId}/members`, { userId: outsider.userId, role: 'member' });
    const byUnknownId = await ownerApi.post(`/api/v1/orgs/${owner.orgId}/members`, { userId: randomUUID(), role: 'member' });
    const byEmail = await ownerApi.post(`/api/v1/orgs/${owner.orgId}/members`, { email: known.toUpperCase(), role: 'member' });
    const byUnknownEmail = await ownerApi.post(`/api/v1/orgs/${owner.orgId}/members`, { email: address('nobody'), role: 'member' });
    expect(byId).toMatchObject({ status: 409, body: { code: 'invitation_required', message: expect.stringMatching(/invite/) } });
    for (const other of [byUnknownId, byEmail, byUnknownEmail])
      expect({ status: other.status, body: other.body }).toEqual({ status: byId.status, body: byId.body });

    const members = (await ownerApi.get(`/api/v1/orgs/${owner.orgId}/members`)).body.data as { userId: string }[];
    expect(members.map((m) => m.userId)).not.toContain(outsider.userId);
    // A key acting as someone outside the project's org is refused, and none is made.
    expect(await ownerApi.post(`/api/v1/projects/${owner.projectId}/keys`, { userId: outsider.userId })).toMatchObject({
      status: 400,
      body: { code: 'validation_failed' },
    });
    const keys = (await ownerApi.get(`/api/v1/projects/${owner.projectId}/keys`)).body.data as { userId: string }[];
    expect(keys.map((k) => k.userId)).not.toContain(outsider.userId);
  });

  it('still changes the role of someone who is already a member, by id or by email', async () => {
    const email = address('teammate');
    expect(await stack.seed.admin.request('PATCH', `/admin/v1/users/${member.userId}`, { email })).toMatchObject({ status: 200 });
    expect(await ownerApi.post(`/api/v1/orgs/${owner.orgId}/members`, { email: email.toUpperCase(), role: 'admin' })).toMatchObject({
      status: 200,
      body: { userId: member.userId, email, role: 'admin' },
    });
    expect(await ownerApi.post(`/api/v1/orgs/${owner.orgId}/members`, { userId: member.userId, role: 'member' })).toMatchObject({
      status: 200,
      body: { role: 'member' },
    });
  });

  it('invites by email with one answer whether or not the address is a user, and the invitee who accepts becomes a member', async () => {
    const ada = await person('ada');
    const toUser = await invite(ownerApi, ada.email.toUpperCase(), 'admin');
    const toNobody = await invite(ownerApi, address('nobody'), 'admin');
    expect(toUser).toMatchObject({
      status: 201,
      body: {
        id: expect.any(String),
        email: ada.email.toUpperCase(),
        role: 'admin',
        state: 'pending',
        invitedBy: { userId: owner.userId, userName: expect.any(String) },
      },
    });
    const shape = (res: { status: number; body: Record<string, unknown> }) => ({
      status: res.status,
      fields: Object.keys(res.body).sort(),
      role: res.body.role,
      state: res.body.state,
      invitedBy: res.body.invitedBy,
    });
    expect(shape(toNobody)).toEqual(shape(toUser));
    for (const body of [toUser.body, toNobody.body]) expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(7 * 24 * 3_600_000);
    const pending = (await ownerApi.get(`/api/v1/orgs/${owner.orgId}/invitations`)).body.data as { id: string }[];
    expect(pending.map((i) => i.id)).toEqual(expect.arrayContaining([toUser.body.id, toNobody.body.id]));

    const mine = await ada.api.get('/api/v1/me/invitations');
    expect(mine).toMatchObject({
      status: 200,
      body: { data: [{ id: toUser.body.id, role: 'admin', org: { id: owner.orgId }, invitedBy: { userId: owner.userId }, expiresAt: toUser.body.expiresAt }] },
    });
    expect(await ada.api.get(`/api/v1/projects/${owner.projectId}/keys`)).toMatchObject({ status: 404 });

    expect(await ada.api.post(`/api/v1/me/invitations/${toUser.body.id}/accept`)).toMatchObject({ status: 200, body: { id: owner.orgId, role: 'admin' } });
    expect((await ada.api.get('/api/v1/me/orgs')).body.data).toEqual([expect.objectContaining({ id: owner.orgId, role: 'admin' })]);
    const members = (await ownerApi.get(`/api/v1/orgs/${owner.orgId}/members`)).body.data as { userId: string; role: string }[];
    expect(members).toContainEqual(expect.objectContaining({ userId: ada.userId, role: 'admin' }));
    expect(await ownerApi.post(`/api/v1/projects/${owner.projectId}/keys`, { userId: ada.userId })).toMatchObject({
      status: 201,
      body: { userId: ada.userId },
    });

    // Single use: spent, it is neither pending anywhere nor accepted or declined again.
    expect((await ada.api.get('/api/v1/me/invitations')).body.data).toEqual([]);
    const again = await ada.api.post(`/api/v1/me/invitations/${toUser.body.id}/accept`);
    expect(again).toMatchObject({ status: 409, body: { code: 'conflict', state: 'accepted', message: expect.stringMatching(/accepted/) } });
    expect(await ada.api.post(`/api/v1/me/invitations/${toUser.body.id}/decline`)).toMatchObject({ status: 409, body: { state: 'accepted' } });
    const left = (await ownerApi.get(`/api/v1/orgs/${owner.orgId}/invitations`)).body.data as { id: string }[];
    expect(left.map((i) => i.id)).not.toContain(toUser.body.id);
  });

  it('refuses a declined, revoked or expired invitation, and one addressed to someone else', async () => {
    const bo = await person('bo');
    const declined = await invite(ownerApi, bo.email);
    expect(await bo.api.post(`/api/v1/me/invitations/${declined.body.id}/decline`)).toMatchObject({ status: 200, body: { declined: true } });
    expect(await bo.api.post(`/api/v1/me/invitations/${declined.body.id}/accept`)).toMatchObject({
      status: 409,
      body: { code: 'conflict', state: 'declined' },
    });

    const cy = await person('cy');
    const revoked = await invite(ownerApi, cy.email);
    expect(await ownerApi.delete(`/api/v1/orgs/${owner.orgId}/invitations/${revoked.body.id}`)).toMatchObject({ status: 200, body: { revoked: true } });
    expect(await ownerApi.delete(`/api/v1/orgs/${owner.orgId}/invitations/${revoked.body.id}`)).toMatchObject({ status: 200, body: { revoked: false } });
    expect((await cy.api.get('/api/v1/me/invitations')).body.data).toEqual([]);
    expect(await cy.api.post(`/api/v1/me/invitations/${revoked.body.id}/accept`)).toMatchObject({ status: 409, body: { state: 'revoked' } });

    const dee = await person('dee');
    const expired = await invite(ownerApi, dee.email);
    await identityDb.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.body.id]);
    expect((await dee.api.get('/api/v1/me/invitations')).body.data).toEqual([]);
    expect((await ownerApi.get(`/api/v1/orgs/${owner.orgId}/invitations`)).body.data).toContainEqual(
      expect.objectContaining({ id: expired.body.id, state: 'expired' }),
    );
    expect(await dee.api.post(`/api/v1/me/invitations/${expired.body.id}/accept`)).toMatchObject({
      status: 409,
      body: { state: 'expired', message: expect.stringMatching(/expired/) },
    });

    // Someone else's invitation, pending or not, is unknown to the one it is not addressed to.
    const forDee = await invite(ownerApi, dee.email);
    expect(await bo.api.post(`/api/v1/me/invitations/${forDee.body.id}/accept`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await bo.api.post(`/api/v1/me/invitations/${revoked.body.id}/decline`)).toMatchObject({ status: 404 });
    expect(await bo.api.post(`/api/v1/me/invitations/${randomUUID()}/accept`)).toMatchObject({ status: 404 });
    for (const who of [bo, cy, dee]) expect((await who.api.get('/api/v1/me/orgs')).body.data).toEqual([]);
  });

  it('lets only owners and admins invite, list and revoke, owners alone invite an owner, and replaces an open invitation when asked again', async () => {
    const memberApi = await signIn(member.userId);
    const email = address('eve');
    expect(await invite(memberApi, email)).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await memberApi.get(`/api/v1/orgs/${owner.orgId}/invitations`)).toMatchObject({ status: 403 });
    const first = await invite(ownerApi, email);
    expect(await memberApi.delete(`/api/v1/orgs/${owner.orgId}/invitations/${first.body.id}`)).toMatchObject({ status: 403 });

    const admin = await stack.seed.member(owner.orgId, owner.projectId, 'admin');
    const adminApi = await signIn(admin.userId);
    expect(await invite(adminApi, address('boss'), 'owner')).toMatchObject({ status: 403, body: { message: /owner/ } });
    const second = await invite(adminApi, email, 'admin');
    expect(second).toMatchObject({ status: 201, body: { role: 'admin', invitedBy: { userId: admin.userId } } });
    const open = (await ownerApi.get(`/api/v1/orgs/${owner.orgId}/invitations`)).body.data as { id: string }[];
    expect(open.map((i) => i.id)).toContain(second.body.id);
    expect(open.map((i) => i.id)).not.toContain(first.body.id);

    // Another org's owner knows nothing of this org or its invitations.
    const stranger = await signIn(outsider.userId);
    expect(await stranger.get(`/api/v1/orgs/${owner.orgId}/invitations`)).toMatchObject({ status: 404 });
    expect(await stranger.delete(`/api/v1/orgs/${owner.orgId}/invitations/${second.body.id}`)).toMatchObject({ status: 404 });
    expect(await stranger.delete(`/api/v1/orgs/${outsider.orgId}/invitations/${second.body.id}`)).toMatchObject({ status: 404 });

    const memberEmail = address('member');
    expect(await stack.seed.admin.request('PATCH', `/admin/v1/users/${admin.userId}`, { email: memberEmail })).toMatchObject({ status: 200 });
    expect(await invite(ownerApi, memberEmail)).toMatchObject({ status: 409, body: { code: 'conflict', message: /already a member/ } });
    expect(await ownerApi.post(`/api/v1/orgs/${owner.orgId}/invitations`, { email: 'not-an-address', role: 'member' })).toMatchObject({
      status: 400,
      body: { code: 'validation_failed' },
    });
    expect(await ownerApi.post(`/api/v1/orgs/${owner.orgId}/invitations`, { email, role: 'king' })).toMatchObject({ status: 400 });
  });
});
