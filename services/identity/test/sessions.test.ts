import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, LocalEvents } from '@lode/bus';
import { identity, sessions } from '@lode/contracts';
import { Database } from '@lode/db';
import { createLogger } from '@lode/telemetry';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { IDENTITY_SCHEMA, startIdentityService, type RunningIdentityService } from '../src/index.ts';

/** The identity service's sessions on a real Postgres, with an idle limit short enough to cross in a test. */
describe('sessions in the identity service', () => {
  const logger = createLogger('test', 'silent');
  const IDLE_MS = 1500;
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
    service = await startIdentityService({ db, bus, events, logger, cursorSecret: 'x'.repeat(32), outbox: { relay: false, pollMs: 1000, retentionMs: 60_000 }, sessionIdleMs: IDLE_MS });
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.close();
    await events?.close();
    await db?.close();
    await database?.drop();
  });

  const newUser = () => bus.call(identity.createUser, { name: 'Ada', avatarUrl: null, email: null });

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
    const start = async () => sessions.tokenHash((await bus.call(sessions.redeemSignInLink, { token: (await bus.call(sessions.createSignInLink, { userId })).token })).token);
    const idle = await start();
    const resolve = (tokenHash: string) => bus.call(sessions.resolveSession, { tokenHash, projectId: null });
    expect((await resolve(idle)).session?.user.id).toBe(userId);
    await sleep(IDLE_MS + 500);
    expect((await resolve(idle)).session).toBeNull();
    const fresh = await start();
    expect((await resolve(fresh)).session?.user.id).toBe(userId);
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
});
