import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { publicEvents } from '@lode/contracts';
import { schemaDatabase, type SchemaDatabase } from '@lode/testkit';
import { EventRecorder } from '../src/domain/event-recorder.ts';
import { EventsRepository } from '../src/repo/events-repo.ts';
import { WEBHOOKS_SCHEMA, webhooksMigrations } from '../src/start.ts';

const lockEvent = (projectId: string, type: 'lock.acquired' | 'lock.released' = 'lock.acquired'): publicEvents.PublicEvent => ({
  id: randomUUID(),
  type,
  projectId,
  occurredAt: new Date().toISOString(),
  data: { locks: [] },
});

describe('recording public events', () => {
  let database: SchemaDatabase;
  const events = new EventsRepository();
  const woken: string[] = [];
  let queuedWakes = 0;
  let recorder: EventRecorder;

  beforeAll(async () => {
    database = await schemaDatabase(WEBHOOKS_SCHEMA, webhooksMigrations);
    recorder = new EventRecorder({ db: database.db, events, onRecorded: (projectId) => woken.push(projectId), onQueued: () => (queuedWakes += 1) });
  });
  afterAll(async () => database?.drop());

  const feed = async (projectId: string) =>
    (
      await database.db.query<{ id: string; position: string }>('SELECT id, position FROM public_events WHERE project_id = $1 ORDER BY position', [projectId])
    ).rows.map((row) => [row.id, Number(row.position)]);
  const subscribe = async (projectId: string, types: string[], disabled = false) =>
    database.db.query(`INSERT INTO webhooks (id, project_id, url, events, secret, disabled) VALUES ($1, $2, 'https://example.com/hook', $3, 's', $4)`, [
      randomUUID(),
      projectId,
      types,
      disabled,
    ]);
  const deliveries = async (projectId: string) =>
    (
      await database.db.query<{ event_id: string }>(
        'SELECT d.event_id FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.project_id = $1 ORDER BY d.seq',
        [projectId],
      )
    ).rows.map((row) => row.event_id);

  it('records events of several projects in one statement, each project in the order given, after what it had', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const first = lockEvent(a);
    await events.record(database.db, [first]);
    const batch = [lockEvent(a), lockEvent(b), lockEvent(a, 'lock.released'), lockEvent(b)];
    const recorded = await events.record(database.db, batch);
    expect([...recorded.values()].map((r) => r.position)).toEqual(expect.arrayContaining([2, 1, 3, 2]));
    expect(await feed(a)).toEqual([
      [first.id, 1],
      [batch[0].id, 2],
      [batch[2].id, 3],
    ]);
    expect(await feed(b)).toEqual([
      [batch[1].id, 1],
      [batch[3].id, 2],
    ]);
  });

  it('leaves out events recorded before, in an earlier statement or twice in one, and numbers the rest without gaps', async () => {
    const project = randomUUID();
    const [first, second] = [lockEvent(project), lockEvent(project)];
    await events.record(database.db, [first]);
    const recorded = await events.record(database.db, [first, second, second]);
    expect([...recorded.keys()]).toEqual([second.id]);
    expect(await feed(project)).toEqual([
      [first.id, 1],
      [second.id, 2],
    ]);
  });

  it('queues each event for the enabled webhooks of its project that subscribe to its type, in feed order', async () => {
    const [hooked, other] = [randomUUID(), randomUUID()];
    await subscribe(hooked, ['lock.acquired']);
    await subscribe(hooked, ['lock.acquired'], true);
    const batch = [lockEvent(hooked), lockEvent(other), lockEvent(hooked, 'lock.released'), lockEvent(hooked)];
    const recorded = await events.record(database.db, batch);
    expect(batch.map((e) => recorded.get(e.id)?.queued)).toEqual([1, 0, 0, 1]);
    expect(await deliveries(hooked)).toEqual([batch[0].id, batch[3].id]);
    expect(await deliveries(other)).toEqual([]);
  });

  it('records events arriving together in one statement, wakes the feed for each and the delivery worker only for deliveries', async () => {
    const [quiet, hooked] = [randomUUID(), randomUUID()];
    await subscribe(hooked, ['lock.released']);
    woken.length = 0;
    queuedWakes = 0;
    const statements: number[] = [];
    const record = events.record.bind(events);
    events.record = async (q, batch) => {
      statements.push(batch.length);
      return record(q, batch);
    };
    try {
      await Promise.all([recorder.record(lockEvent(quiet)), recorder.record(lockEvent(quiet)), recorder.record(lockEvent(quiet))]);
      expect(statements.reduce((sum, n) => sum + n, 0)).toBe(3);
      expect(statements.length).toBeLessThan(3);
      expect(woken).toEqual([quiet, quiet, quiet]);
      expect(queuedWakes).toBe(0);

      await recorder.record(lockEvent(hooked, 'lock.released'));
      expect(queuedWakes).toBe(1);
    } finally {
      events.record = record;
    }
  });

  it('fails only the event that cannot be recorded when it arrived with others', async () => {
    const project = randomUUID();
    const broken = { ...lockEvent(project), projectId: 'not-a-uuid' };
    const [before, after] = [lockEvent(project), lockEvent(project)];
    const outcomes = await Promise.allSettled([recorder.record(before), recorder.record(broken), recorder.record(after)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await feed(project)).map(([id]) => id)).toEqual([before.id, after.id]);
  });
});
