import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { commit } from '@lode/contracts';
import { connectNats, JetStreamEvents, LocalBus } from '@lode/bus';
import { Database } from '@lode/db';
import { createTestDatabase, TEST_NATS_URL, testLogger, uniqueName, type TestDatabase } from '@lode/testkit';
import { startSyncService, type RunningSyncService } from '../src/index.ts';
import { sha } from './helpers.ts';

const logger = testLogger('test');
/** Only a hang guard: far above what applying a few commits takes, below the 30 s ack wait of old. */
const GUARD_MS = 20_000;
const CONSUMER = 'ordered-projection';

/** commit.created for a one-file commit that sets `path` to version `seq` (each commit of the project a new version). */
function commitEvent(projectId: string, fileId: string, seq: number): commit.CommitCreated {
  return {
    commitId: randomUUID(),
    projectId,
    branch: 'main',
    sequenceNum: seq,
    message: `commit ${seq}`,
    author: { userId: randomUUID(), userName: 'tester' },
    createdAt: new Date().toISOString(),
    fileCount: 1,
    part: 1,
    parts: 1,
    entries: [{ fileId, path: 'Art/hero.png', action: seq === 1 ? 'add' : 'modify', version: seq, sha256: sha(`${projectId}:${seq}`), size: seq }],
  };
}

/**
 * Two replicas of the sync service on one durable consumer, as in production: one is a process that
 * took a project's first commit and has not applied it yet, the other a real sync service.
 */
describe('the sync projection with a project’s events split across replicas', () => {
  let database: TestDatabase;
  let db: Database;
  let nc: NatsConnection;
  let events: JetStreamEvents;
  const buses: LocalBus[] = [];
  let sync: RunningSyncService | undefined;

  /** A bus of its own for each start: the service serves its RPCs there and never takes them back. */
  const start = () => {
    const bus = new LocalBus(logger);
    buses.push(bus);
    return startSyncService({ db, bus, events, logger, catchUpMs: 1000, cursorSecret: 's'.repeat(32), consumerName: CONSUMER });
  };
  const progress = async (projectId: string) =>
    (await db.query<{ applied_seq: number }>('SELECT applied_seq FROM progress WHERE project_id = $1', [projectId])).rows[0]?.applied_seq ?? 0;
  const publish = async (event: commit.CommitCreated) => events.publish({ subject: commit.commitCreated.subject, id: `${event.commitId}.1`, data: event });

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: uniqueName('sync'), max: 5 });
    nc = await connectNats(TEST_NATS_URL, 'ordered-projection-test');
    events = await JetStreamEvents.connect(nc, logger, { namespace: uniqueName('syncorder') });
    // Creates the schema and the durable, then leaves: the events below wait in the stream.
    await (await start()).stop();
  });
  afterAll(async () => {
    await sync?.stop();
    await events?.deleteStream();
    await nc?.drain();
    await Promise.all(buses.map((bus) => bus.close()));
    await db?.close();
    await database?.drop();
  });

  it('defers commits that came ahead of one another replica holds, applies other projects meanwhile, and then all in order', async () => {
    const [p, q, fileP, fileQ] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    for (const seq of [1, 2, 3]) await publish(commitEvent(p, fileP, seq));
    await publish(commitEvent(q, fileQ, 1));

    const otherReplica = await connectNats(TEST_NATS_URL, 'ordered-projection-other-replica');
    try {
      const taken = await vi.waitFor(
        async () => {
          const msg = await (await jetstream(otherReplica).consumers.get(events.streamName, CONSUMER)).next({ expires: 1000 });
          if (!msg) throw new Error('no event yet');
          return msg;
        },
        { timeout: GUARD_MS },
      );
      expect(commit.commitCreated.schema.parse(taken.json())).toMatchObject({ projectId: p, sequenceNum: 1 });
      // Held as long as the test needs: p's commit 1 is neither applied nor handed back meanwhile.
      const keepAlive = setInterval(() => taken.working(), 1000);
      sync = await start();

      await vi.waitFor(async () => expect(await progress(q)).toBe(1), { timeout: GUARD_MS });
      expect(await progress(p)).toBe(0);

      clearInterval(keepAlive);
      taken.nak();
      await vi.waitFor(async () => expect(await progress(p)).toBe(3), { timeout: GUARD_MS });
      const { rows: history } = await db.query<{ version: number; commit_seq: number }>(
        'SELECT version, commit_seq FROM history WHERE project_id = $1 ORDER BY version',
        [p],
      );
      expect(history).toEqual([1, 2, 3].map((seq) => ({ version: seq, commit_seq: seq })));
      const { rows: tree } = await db.query('SELECT version, commit_seq FROM tree WHERE project_id = $1', [p]);
      expect(tree).toEqual([{ version: 3, commit_seq: 3 }]);
    } finally {
      await otherReplica.close();
    }
  });

  it('applies a commit whose predecessors the stream no longer has once every earlier event was handled', async () => {
    sync ??= await start();
    const [lost, file] = [randomUUID(), randomUUID()];
    // Commits 1 to 4 are gone (retention): nothing before 5 can come.
    await publish(commitEvent(lost, file, 5));
    await vi.waitFor(async () => expect(await progress(lost)).toBe(5), { timeout: GUARD_MS });
    const { rows } = await db.query('SELECT version, commit_seq FROM tree WHERE project_id = $1', [lost]);
    expect(rows).toEqual([{ version: 5, commit_seq: 5 }]);
  });
});
