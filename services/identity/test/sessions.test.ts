import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalBus, LocalEvents } from '@lode/bus';
import { identity, sessions } from '@lode/contracts';
import { Database } from '@lode/db';
import { createTestDatabase, testLogger, type TestDatabase } from '@lode/testkit';
import { IDENTITY_SCHEMA, startIdentityService, type RunningIdentityService } from '../src/index.ts';

/**
 * The identity service's sessions on a real Postgres, with an idle limit short enough to cross in a
 * test, an absolute lifetime crossed by ageing a session's start, and the purge of spent links and
 * sessions running every 200 ms.
 */
describe('sessions in the identity service', () => {
  const logger = testLogger('test');
  const IDLE_MS = 1500;
  const MAX_AGE_MS = 10 * 60_000;
  const PURGE_INTERVAL_MS = 200;
  let database: TestDatabase;
  let db: Database;
  let bus: LocalBus;
  let events: LocalEvents;
  let service: RunningIdentityService;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 4 });
    bus = new LocalBus(logger);
    events = new LocalEvents(logger);
    service = await startIdentityService({
      db,
      bus,
      events,
      logger,
      cursorSecret: 'x'.repeat(32),
      outbox: { relay: false, pollMs: 1000, retentionMs: 60_000 },
      sessionIdleMs: IDLE_MS,
      sessionMaxAgeMs: MAX_AGE_MS,
      sessionPurgeIntervalMs: PURGE_INTERVAL_MS,
    });
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.close();
    await events?.close();
    await db?.close();
    await database?.drop();
  });

  const newUser = () => bus.call(identity.createUser, { name: 'Ada', avatarUrl: null, email: null });
  const newLink = async (userId: string) => (await bus.call(sessions.createSignInLink, { userId })).token;
  /** Moves a link's expiry as if it had been made `ms` earlier: its age, without waiting it out. */
  const ageLink = (token: string, ms: number) =>
    db.query(`UPDATE sign_in_links SET expires_at = expires_at - $2 * interval '1 millisecond' WHERE token_hash = decode($1, 'hex')`, [
      sessions.tokenHash(token),
      ms,
    ]);
  /** A new session of `userId`: its token's hash and its CSRF token. */
  const startSession = async (userId: string) => {
    const started = await bus.call(sessions.redeemSignInLink, { token: await newLink(userId) });
    return { tokenHash: sessions.tokenHash(started.token), csrfToken: started.csrfToken };
  };
  /** Moves a session's start `ms` earlier, leaving its last activity as it is. */
  const ageSession = (tokenHash: string, ms: number) =>
    db.query(`UPDATE sessions SET created_at = created_at - $2 * interval '1 millisecond' WHERE token_hash = decode($1, 'hex')`, [tokenHash, ms]);

  it('refuses a sign-in link once it is 15 minutes old, and takes one 14 minutes old', async () => {
    const userId = (await newUser()).id;
    const [stale, fresh] = [await newLink(userId), await newLink(userId)];
    await ageLink(stale, 15 * 60_000);
    await ageLink(fresh, 14 * 60_000);
    await expect(bus.call(sessions.redeemSignInLink, { token: stale })).rejects.toMatchObject({ code: 'unauthorized' });
    expect((await bus.call(sessions.redeemSignInLink, { token: fresh })).user.id).toBe(userId);
  });

  it('spends a link exactly once when two redemptions race', async () => {
    const { token } = await bus.call(sessions.createSignInLink, { userId: (await newUser()).id });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => bus.call(sessions.redeemSignInLink, { token })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => r.reason)).toEqual(
      Array.from({ length: 4 }, () => expect.objectContaining({ code: 'unauthorized' })),
    );
  });

  it('ends a session left idle longer than the limit; a new sign-in starts a live one', async () => {
    const userId = (await newUser()).id;
    const start = async () =>
      sessions.tokenHash((await bus.call(sessions.redeemSignInLink, { token: (await bus.call(sessions.createSignInLink, { userId })).token })).token);
    const idle = await start();
    const resolve = (tokenHash: string) => bus.call(sessions.resolveSession, { tokenHash, projectId: null });
    expect((await resolve(idle)).session?.user.id).toBe(userId);
    await sleep(IDLE_MS + 500);
    expect((await resolve(idle)).session).toBeNull();
    const fresh = await start();
    expect((await resolve(fresh)).session?.user.id).toBe(userId);
  });

  it('ends a session at its absolute lifetime however busy it is, and keeps one a minute younger', async () => {
    const userId = (await newUser()).id;
    const [old, younger] = [(await startSession(userId)).tokenHash, (await startSession(userId)).tokenHash];
    await ageSession(old, MAX_AGE_MS + 60_000);
    await ageSession(younger, MAX_AGE_MS - 60_000);
    const resolve = (tokenHash: string) => bus.call(sessions.resolveSession, { tokenHash, projectId: null });
    // Used a moment ago, so well within the idle limit: only its age ends it.
    expect((await resolve(old)).session).toBeNull();
    expect((await resolve(younger)).session?.user.id).toBe(userId);
  });

  it("keeps only the CSRF token's SHA-256: neither the row nor the resolved session holds the token", async () => {
    const { tokenHash, csrfToken } = await startSession((await newUser()).id);
    expect(csrfToken).toMatch(sessions.TOKEN_PATTERN);
    const { rows } = await db.query<{ row: string }>(`SELECT row_to_json(s)::text AS row FROM sessions s WHERE token_hash = decode($1, 'hex')`, [tokenHash]);
    expect(rows).toHaveLength(1);
    expect(rows[0].row).not.toContain(csrfToken);
    expect(rows[0].row).toContain(sessions.tokenHash(csrfToken));
    const resolved = await bus.call(sessions.resolveSession, { tokenHash, projectId: null });
    expect(JSON.stringify(resolved)).not.toContain(csrfToken);
    expect(resolved.session).toMatchObject({ csrfTokenHash: sessions.tokenHash(csrfToken) });
  });

  it("answers no project identity for a project outside the user's orgs, and the role in their own", async () => {
    const user = await newUser();
    const org = await bus.call(identity.createOrg, { name: 'Studio', slug: `studio-${Date.now()}` });
    const project = await bus.call(identity.createProject, { orgId: org.id, name: 'Game', slug: 'game', iconUrl: null, writeRateLimit: null });
    const { token } = await bus.call(sessions.redeemSignInLink, { token: (await bus.call(sessions.createSignInLink, { userId: user.id })).token });
    const tokenHash = sessions.tokenHash(token);
    expect((await bus.call(sessions.resolveSession, { tokenHash, projectId: project.id })).project).toBeNull();
    await bus.call(identity.addMember, { orgId: org.id, userId: user.id, role: 'admin' });
    const { session, project: caller } = await bus.call(sessions.resolveSession, { tokenHash, projectId: project.id });
    expect(caller).toMatchObject({ keyId: session?.id, deviceId: null, revoked: false, role: 'admin', userId: user.id, projectId: project.id, orgId: org.id });
    expect(await bus.call(sessions.endSession, { tokenHash })).toEqual({ ended: true });
    expect((await bus.call(sessions.resolveSession, { tokenHash, projectId: project.id })).session).toBeNull();
  });

  it('purges used and expired links and ended, idle and too old sessions on its own, keeping the live ones', async () => {
    const userId = (await newUser()).id;
    const [used, expired, live] = [await newLink(userId), await newLink(userId), await newLink(userId)];
    const start = async () => (await startSession(userId)).tokenHash;
    const [ended, idle, old, active] = [await start(), await start(), await start(), await start()];
    await bus.call(sessions.redeemSignInLink, { token: used });
    await ageLink(expired, 15 * 60_000);
    await bus.call(sessions.endSession, { tokenHash: ended });
    await db.query(`UPDATE sessions SET last_seen_at = now() - interval '1 hour' WHERE token_hash = decode($1, 'hex')`, [idle]);
    await ageSession(old, MAX_AGE_MS + 60_000);

    const remaining = async (table: 'sign_in_links' | 'sessions', hashes: string[]) =>
      (
        await db.query<{ hash: string }>(`SELECT encode(token_hash, 'hex') AS hash FROM ${table} WHERE token_hash = ANY($1::bytea[])`, [
          hashes.map((h) => `\\x${h}`),
        ])
      ).rows
        .map((row) => row.hash)
        .sort();
    const links = [used, expired, live].map((token) => sessions.tokenHash(token));
    await vi.waitFor(
      async () => {
        expect(await remaining('sign_in_links', links)).toEqual([sessions.tokenHash(live)]);
        expect(await remaining('sessions', [ended, idle, old, active])).toEqual([active]);
      },
      { timeout: 20_000, interval: PURGE_INTERVAL_MS },
    );
    expect((await bus.call(sessions.resolveSession, { tokenHash: active, projectId: null })).session?.user.id).toBe(userId);
  });
});
