import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, LocalEvents } from '@lode/bus';
import { identity, projectDeletion } from '@lode/contracts';
import { Database } from '@lode/db';
import { createTestDatabase, testLogger, type TestDatabase } from '@lode/testkit';
import { IDENTITY_SCHEMA, startIdentityService, type RunningIdentityService } from '../src/index.ts';
import { ProjectDeletionService } from '../src/domain/project-deletion-service.ts';
import { ApiKeysRepository } from '../src/repo/api-keys-repo.ts';
import { MembershipsRepository } from '../src/repo/memberships-repo.ts';
import { ProjectsRepository } from '../src/repo/projects-repo.ts';

/**
 * The purge job as replicas run it: two at once on one database, each with its own pool. Every
 * deletion due is claimed by exactly one of them, announced once, and its keys deleted.
 */
describe('the project purge job, run by two replicas at once', () => {
  const logger = testLogger('test');
  /** More than one run's claim, so the replicas' claims interleave over several rounds. */
  const PROJECTS = 110;
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
    // No undo window: a deletion is due at once; the service's own job waits an hour, out of the way.
    service = await startIdentityService({
      db,
      bus,
      events,
      logger,
      cursorSecret: 'x'.repeat(32),
      outbox: { relay: false, pollMs: 1000, retentionMs: 60_000 },
      projectDeleteWindowMs: 0,
      projectPurgeIntervalMs: 3_600_000,
    });
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.close();
    await events?.close();
    await db?.close();
    await database?.drop();
  });

  const replica = (pool: Database) =>
    new ProjectDeletionService({
      db: pool,
      projects: new ProjectsRepository(),
      members: new MembershipsRepository(),
      keys: new ApiKeysRepository(),
      windowMs: 0,
      onPurged: () => undefined,
    });

  it('claims each due deletion once, announces it once and deletes its keys; a live project keeps its keys', async () => {
    const org = await bus.call(identity.createOrg, { name: 'Studio', slug: 'studio' });
    const user = await bus.call(identity.createUser, { name: 'Ada', avatarUrl: null, email: null });
    await bus.call(identity.addMember, { orgId: org.id, userId: user.id, role: 'owner' });
    const newProject = async (n: number) => {
      const project = await bus.call(identity.createProject, { orgId: org.id, name: `P${n}`, slug: `p-${n}`, iconUrl: null, writeRateLimit: null });
      await bus.call(identity.createKey, { projectId: project.id, userId: user.id });
      return project.id;
    };
    const doomed = await Promise.all(Array.from({ length: PROJECTS }, (_, n) => newProject(n)));
    const kept = await newProject(PROJECTS);
    for (const projectId of doomed) await bus.call(projectDeletion.adminDeleteProject, { projectId });

    const pools = [0, 1].map(() => new Database({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 2 }));
    try {
      const purged = await Promise.all(pools.map((pool) => replica(pool).purgeDue()));
      expect(purged[0] + purged[1]).toBe(PROJECTS);
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }

    const announced = await db.query<{ event_id: string }>('SELECT event_id FROM outbox WHERE subject = $1', [projectDeletion.projectPurged.subject]);
    expect(announced.rows.map((r) => r.event_id).sort()).toEqual([...doomed].sort());
    const keys = await db.query<{ project_id: string }>('SELECT project_id FROM api_keys');
    expect(keys.rows).toEqual([{ project_id: kept }]);
    // The tombstones stay, each purged once; a second run finds nothing to do.
    const tombstones = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE purged_at IS NOT NULL');
    expect(tombstones.rows[0].n).toBe(PROJECTS);
    expect(await replica(db).purgeDue()).toBe(0);
  });
});
