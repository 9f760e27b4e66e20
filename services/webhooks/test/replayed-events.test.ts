import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, LocalEvents } from '@lode/bus';
import { lock, webhooks } from '@lode/contracts';
import { Database } from '@lode/db';
import { createLogger } from '@lode/telemetry';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { publicEventId } from '../src/domain/public-event-plan.ts';
import { startWebhooksService, WEBHOOKS_SCHEMA, type RunningWebhooksService } from '../src/start.ts';
import { eventually, Receiver } from './receiver.ts';

const HOUR = 3_600_000;

/**
 * The embedded mode replays every service's retained outbox at each start, up to
 * LODE_OUTBOX_RETENTION_MS back: longer ago than the feed keeps its events when the feed's retention
 * is the shorter. A replayed event must still be known by its id.
 */
describe('an internal event handed over again after its public event left the feed', () => {
  const logger = createLogger('test', 'silent');
  let database: TestDatabase;
  let db: Database;
  let bus: LocalBus;
  let events: LocalEvents;
  let service: RunningWebhooksService;
  let receiver: Receiver;
  const config = { allowPrivate: true, retryBaseMs: 20, retryWindowMs: 60_000, timeoutMs: 2000, pollMs: 1000, feedRetentionMs: HOUR, outboxRetentionMs: 24 * HOUR };
  /** As the embedded process starts: a new in-process stream, which remembers no event id. */
  const start = async () => {
    bus = new LocalBus(logger);
    events = new LocalEvents(logger);
    service = await startWebhooksService({ db, bus, events, logger, config });
  };
  const stop = async () => {
    await service?.stop();
    await events?.close();
    await bus?.close();
  };
  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: WEBHOOKS_SCHEMA, max: 2 });
    await start();
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await stop();
    await db?.close();
    await database?.drop();
  });

  const projectId = randomUUID();
  const holder = { userId: randomUUID(), userName: 'Alice' };
  const lockTaken = (internalId: string) =>
    events.publish({
      subject: lock.locksChanged.subject,
      id: internalId,
      data: {
        projectId,
        action: 'acquired',
        by: holder,
        at: new Date().toISOString(),
        locks: [{ fileId: randomUUID(), path: `${internalId}.umap`, ...holder, note: '', lockedAt: new Date().toISOString() }],
      } satisfies lock.LocksChanged,
    });
  /** As if `ms` had passed since everything recorded so far. */
  const age = async (ms: number) => {
    await db.query('UPDATE public_events SET recorded_at = recorded_at - make_interval(secs => $1)', [ms / 1000]);
    await db.query('UPDATE recorded_event_ids SET recorded_at = recorded_at - make_interval(secs => $1)', [ms / 1000]);
    await db.query('UPDATE deliveries SET created_at = created_at - make_interval(secs => $1)', [ms / 1000]);
  };
  const onFeed = async () => (await db.query<{ id: string }>('SELECT id FROM public_events WHERE project_id = $1 ORDER BY position', [projectId])).rows.map((r) => r.id);
  const allSettled = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending'`)).rows[0].n === 0;

  it('is recognised by its id for the outbox retention: neither recorded nor delivered again', async () => {
    const hook = await bus.call(webhooks.create, { manager: { projectId, role: 'operator' }, url: receiver.url, events: ['lock.acquired'] });
    receiver.secret = hook.secret;
    const first = publicEventId('replayed-1', 'lock.acquired');
    await lockTaken('replayed-1');
    await eventually('the first event delivered', () => receiver.delivered().some((r) => r.id === first));

    // Two hours on: past the feed's retention, so the purge takes the event and its finished delivery.
    await age(2 * HOUR);
    await service.purgeExpired();
    expect(await onFeed()).toEqual([]);

    // The embedded process restarts and replays its outbox: the same internal event, then a new one.
    await stop();
    await start();
    await lockTaken('replayed-1');
    await lockTaken('replayed-2');
    const second = publicEventId('replayed-2', 'lock.acquired');
    await eventually('the new event delivered, nothing left pending', async () => receiver.delivered().some((r) => r.id === second) && (await allSettled()));
    expect(await onFeed()).toEqual([second]);
    expect(receiver.delivered().map((r) => r.id)).toEqual([first, second]);
  });

  it('forgets an id once the outbox retention (and its purge lag) is over', async () => {
    const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM recorded_event_ids')).rows[0].n;
    await db.query('UPDATE recorded_event_ids SET recorded_at = now()');
    const recorded = await count();
    expect(recorded).toBeGreaterThan(0);
    await age(26 * HOUR - 60_000);
    await service.purgeExpired();
    expect(await count()).toBe(recorded);
    await age(120_000);
    await service.purgeExpired();
    expect(await count()).toBe(0);
  });
});
