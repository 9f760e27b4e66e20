import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, pushFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { eventually } from './receiver.ts';
import { FeedClient } from './sse.ts';

describe.each(['local', 'nats'] as const)('the live event feed, GET /events as Server-Sent Events (%s bus)', (bus) => {
  let stack: TestStack;
  const open: FeedClient[] = [];
  beforeAll(async () => {
    // A short heartbeat, so an idle feed shows its keep-alive comment within the test. A short
    // recheck and key cache, so a feed sees its member removed without waiting out the deployed ones.
    stack = await startTestStack({ bus, feedHeartbeatMs: 200, feedRecheckMs: 500, authCacheMs: 500 });
  });
  // A feed left open would hold the gateway's server open at stop.
  afterEach(async () => {
    await Promise.all(open.splice(0).map((feed) => feed.close()));
  });
  afterAll(async () => stack?.stop());

  async function feedOf(p: SeededProject, query = '', headers: Record<string, string> = {}): Promise<FeedClient> {
    const feed = await FeedClient.open(`${stack.baseUrl}/api/v1/projects/${p.projectId}/events${query}`, { ...p.api.headers, ...headers });
    open.push(feed);
    return feed;
  }

  async function sessionFeedOf(projectId: string, cookie: string): Promise<FeedClient> {
    const feed = await FeedClient.open(`${stack.baseUrl}/api/v1/projects/${projectId}/events`, { cookie });
    open.push(feed);
    return feed;
  }

  /** A dashboard session of the user: the cookie the browser's feed sends, and a client that may also write. */
  async function signIn(userId: string) {
    const link = await stack.seed.admin.post<{ url: string }>(`/admin/v1/users/${userId}/sign-in-links`);
    const token = new URL(link.body.url).hash.replace('#token=', '');
    const res = await new ApiClient(stack.baseUrl).post('/api/v1/session', { token });
    expect(res.status).toBe(201);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
    return { cookie, api: new ApiClient(stack.baseUrl, { cookie, 'x-csrf-token': res.body.csrfToken as string }) };
  }

  async function lockFile(p: SeededProject) {
    const file = await pushFile(p.api, p.projectId, `art/${randomBytes(3).toString('hex')}.psd`, randomBytes(32));
    expect((await p.api.post(`/api/v1/projects/${p.projectId}/locks`, { fileIds: [file.fileId] })).body.acquired).toHaveLength(1);
    return file;
  }

  it("shows a lock taken by one client on another client's feed, each event with its id", async () => {
    const owner = await stack.seed.project();
    const teammate = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const feed = await feedOf(teammate);
    expect(feed.status).toBe(200);
    expect(feed.contentType).toMatch(/^text\/event-stream/);
    const file = await lockFile(owner);
    const event = await feed.next('lock.acquired');
    expect(event).toMatchObject({ type: 'lock.acquired', projectId: owner.projectId, data: { locks: [{ fileId: file.fileId, userId: owner.userId }] } });
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.feedId).toMatch(/^\d+$/);
  });

  it('keeps an idle feed alive with a comment line', async () => {
    const owner = await stack.seed.project();
    const feed = await feedOf(owner);
    await eventually('a keep-alive comment', () => feed.comments.includes('keep-alive'));
    expect(feed.events).toEqual([]);
  });

  it('holds at most 20 feeds open per key: the 21st is 429 too_many_feeds, other keys are not affected, and a closed feed frees its place', async () => {
    const owner = await stack.seed.project();
    const teammate = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const feeds = [];
    for (let i = 0; i < 20; i++) feeds.push(await feedOf(owner));
    expect(feeds.map((f) => f.status)).toEqual(Array(20).fill(200));
    const refused = await fetch(`${stack.baseUrl}/api/v1/projects/${owner.projectId}/events`, { headers: owner.api.headers });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ code: 'too_many_feeds', max: 20, per: 'key' });
    expect((await feedOf(teammate)).status).toBe(200);
    await feeds[0].close();
    const again = await eventually('a place freed by the closed feed', async () => {
      const feed = await feedOf(owner);
      return feed.status === 200 && feed;
    });
    expect(again.status).toBe(200);
  });

  it('holds at most 40 feeds open per user over all their keys and sessions: more keys minted do not open more', async () => {
    const owner = await stack.seed.project();
    const teammate = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const mint = async () => {
      const key = await stack.seed.admin.post<{ key: string }>(`/admin/v1/projects/${owner.projectId}/keys`, { userId: teammate.userId });
      expect(key.status).toBe(201);
      return { ...teammate, api: teammate.api.withHeaders({ authorization: `Bearer ${key.body.key}` }) };
    };
    const [second, third] = [await mint(), await mint()];
    const feeds = [];
    for (let i = 0; i < 20; i++) feeds.push(await feedOf(teammate), await feedOf(second));
    expect(feeds.map((f) => f.status)).toEqual(Array(40).fill(200));

    const refused = await fetch(`${stack.baseUrl}/api/v1/projects/${owner.projectId}/events`, { headers: third.api.headers });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ code: 'too_many_feeds', max: 40, per: 'user', message: expect.any(String) });
    expect((await sessionFeedOf(owner.projectId, (await signIn(teammate.userId)).cookie)).status).toBe(429);
    expect((await feedOf(owner)).status).toBe(200);

    await feeds[0].close();
    const again = await eventually('a place freed by the closed feed', async () => {
      const feed = await feedOf(third);
      return feed.status === 200 && feed;
    });
    expect(again.status).toBe(200);
  });

  it('closes a feed whose key is revoked, sending nothing after the revocation', async () => {
    const owner = await stack.seed.project();
    const teammate = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const feed = await feedOf(teammate);
    expect(feed.status).toBe(200);
    expect(await stack.seed.admin.delete(`/admin/v1/keys/${teammate.keyId}`)).toMatchObject({ status: 200 });
    await lockFile(owner);
    expect(await feed.closing()).toMatchObject({ reason: 'access', code: 'key_revoked' });
    expect(feed.events.map((e) => e.event)).toEqual(['closed']);
  });

  it("closes a dashboard session's feed when the session signs out, sending nothing after", async () => {
    const owner = await stack.seed.project();
    const teammate = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const session = await signIn(teammate.userId);
    const feed = await sessionFeedOf(teammate.projectId, session.cookie);
    expect(feed.status).toBe(200);
    expect(await session.api.delete('/api/v1/session')).toMatchObject({ status: 200 });
    await lockFile(owner);
    expect(await feed.closing()).toMatchObject({ reason: 'access', code: 'unauthorized' });
    expect(feed.events.map((e) => e.event)).toEqual(['closed']);
  });

  it('closes the feeds of a member removed from the organization, by key and by session', async () => {
    const owner = await stack.seed.project();
    const teammate = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const byKey = await feedOf(teammate);
    const bySession = await sessionFeedOf(teammate.projectId, (await signIn(teammate.userId)).cookie);
    expect([byKey.status, bySession.status]).toEqual([200, 200]);
    const { api } = await signIn(owner.userId);
    expect(await api.delete(`/api/v1/orgs/${owner.orgId}/members/${teammate.userId}`)).toMatchObject({ status: 200 });
    // No event is needed: the feed checks its caller on its own, however quiet the project.
    expect(await byKey.closing()).toMatchObject({ reason: 'access', code: 'forbidden' });
    expect(await bySession.closing()).toMatchObject({ reason: 'access', code: 'not_found' });
  });

  it('resumes after Last-Event-ID with what the client missed, and only that', async () => {
    const owner = await stack.seed.project();
    const first = await feedOf(owner);
    const file = await lockFile(owner);
    const acquired = await first.next('lock.acquired');
    await first.close();

    await owner.api.delete(`/api/v1/projects/${owner.projectId}/locks`, { fileIds: [file.fileId] });
    const resumed = await feedOf(owner, '', { 'last-event-id': String(acquired.feedId) });
    const released = await resumed.next('lock.released');
    expect(released.data).toMatchObject({ reason: 'released', locks: [{ fileId: file.fileId }] });
    expect(resumed.events[0].event).toBe('lock.released');
    expect(resumed.events.some((e) => e.event === 'lock.acquired')).toBe(false);
  });

  it('tells a client whose position it does not know to reload (a reset event), then follows on', async () => {
    const owner = await stack.seed.project();
    const feed = await feedOf(owner, '', { 'last-event-id': '999999' });
    const reset = await feed.next<{ next: number }>('reset');
    expect(reset.next).toBe(0);
    await lockFile(owner);
    await feed.next('lock.acquired');
  });

  it('streams only the types asked for, and refuses an unknown type or a malformed Last-Event-ID with a JSON 400', async () => {
    const owner = await stack.seed.project();
    const feed = await feedOf(owner, '?types=lock.released');
    const file = await lockFile(owner);
    await owner.api.delete(`/api/v1/projects/${owner.projectId}/locks`, { fileIds: [file.fileId] });
    await feed.next('lock.released');
    expect(feed.events.map((e) => e.event)).toEqual(['lock.released']);

    for (const [query, headers] of [
      ['?types=lock.stolen', {}],
      ['', { 'last-event-id': 'abc' }],
    ] as const) {
      const res = await fetch(`${stack.baseUrl}/api/v1/projects/${owner.projectId}/events${query}`, { headers: { ...owner.api.headers, ...headers } });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'validation_failed' });
    }
  });

  it("never shows another project's events, and another project's feed is unknown (404)", async () => {
    const a = await stack.seed.project();
    const b = await stack.seed.project();
    const feedOfB = await feedOf(b);
    await lockFile(a);
    const mine = await lockFile(b);
    // A's lock was recorded first: had it leaked, it would have come before B's.
    await feedOfB.next('lock.acquired');
    expect(feedOfB.events.map((e) => JSON.parse(e.data).projectId)).toEqual([b.projectId]);
    expect(JSON.parse(feedOfB.events[0].data).data.locks[0].fileId).toBe(mine.fileId);

    const res = await fetch(`${stack.baseUrl}/api/v1/projects/${a.projectId}/events`, { headers: b.api.headers });
    expect(res.status).toBe(404);
    await res.body?.cancel();
    const anonymous = await fetch(`${stack.baseUrl}/api/v1/projects/${a.projectId}/events`);
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
  });
});
