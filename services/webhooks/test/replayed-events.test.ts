import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lock, webhooks } from '@lode/contracts';
import { publicEventId } from '../src/domain/public-event-plan.ts';
import { eventually, Receiver } from './receiver.ts';
import { standaloneWebhooks } from './standalone.ts';

const HOUR = 3_600_000;

/**
 * The embedded mode replays every service's retained outbox at each start, up to
 * LODE_OUTBOX_RETENTION_MS back: longer ago than the feed keeps its events when the feed's retention
 * is the shorter. A replayed event must still be known by its id.
 */
describe('an internal event handed over again after its public event left the feed', () => {
  const alone = standaloneWebhooks({ allowPrivate: true, feedRetentionMs: HOUR, outboxRetentionMs: 24 * HOUR });
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(async () => receiver?.stop());

  const projectId = randomUUID();
  const holder = { userId: randomUUID(), userName: 'Alice' };
  const lockTaken = (internalId: string) =>
    alone.events.publish({
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
    await alone.db.query('UPDATE public_events SET recorded_at = recorded_at - make_interval(secs => $1)', [ms / 1000]);
    await alone.db.query('UPDATE recorded_event_ids SET recorded_at = recorded_at - make_interval(secs => $1)', [ms / 1000]);
    await alone.db.query('UPDATE deliveries SET created_at = created_at - make_interval(secs => $1)', [ms / 1000]);
  };
  const onFeed = async () =>
    (await alone.db.query<{ id: string }>('SELECT id FROM public_events WHERE project_id = $1 ORDER BY position', [projectId])).rows.map((r) => r.id);
  const allSettled = async () => (await alone.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending'`)).rows[0].n === 0;

  it('is recognised by its id for the outbox retention: neither recorded nor delivered again', async () => {
    const hook = await alone.bus.call(webhooks.create, { manager: { projectId, role: 'owner' }, url: receiver.url, events: ['lock.acquired'] });
    receiver.secret = hook.secret;
    const first = publicEventId('replayed-1', 'lock.acquired');
    await lockTaken('replayed-1');
    await eventually('the first event delivered', () => receiver.delivered().some((r) => r.id === first));

    // Two hours on: past the feed's retention, so the purge takes the event and its finished delivery.
    await age(2 * HOUR);
    await alone.service.purgeExpired();
    expect(await onFeed()).toEqual([]);

    // The embedded process restarts and replays its outbox: the same internal event, then a new one.
    await alone.restart();
    await lockTaken('replayed-1');
    await lockTaken('replayed-2');
    const second = publicEventId('replayed-2', 'lock.acquired');
    await eventually('the new event delivered, nothing left pending', async () => receiver.delivered().some((r) => r.id === second) && (await allSettled()));
    expect(await onFeed()).toEqual([second]);
    expect(receiver.delivered().map((r) => r.id)).toEqual([first, second]);
  });

  it('forgets an id once the outbox retention (and its purge lag) is over', async () => {
    const count = async () => (await alone.db.query<{ n: number }>('SELECT count(*)::int AS n FROM recorded_event_ids')).rows[0].n;
    await alone.db.query('UPDATE recorded_event_ids SET recorded_at = now()');
    const recorded = await count();
    expect(recorded).toBeGreaterThan(0);
    await age(26 * HOUR - 60_000);
    await alone.service.purgeExpired();
    expect(await count()).toBe(recorded);
    await age(120_000);
    await alone.service.purgeExpired();
    expect(await count()).toBe(0);
  });
});
