import type { Database } from '@lode/db';
import { runPeriodically, type PeriodicTask } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import type { ClaimedDelivery, DeliveriesRepository } from '../repo/deliveries-repo.ts';
import type { WebhooksRepository } from '../repo/webhooks-repo.ts';
import { deliveryMetrics } from './delivery-metrics.ts';
import type { SecretBox } from './secret-box.ts';
import { settleAttempt, type RetryPolicy, type Settlement } from './retry-plan.ts';
import { sendDelivery, type SenderOptions } from './sender.ts';

/** Sends in flight at once on a replica. */
const MAX_IN_FLIGHT = 20;
/** Sends in flight at once to one webhook on a replica: an endpoint that hangs holds no more slots than this. */
const MAX_IN_FLIGHT_PER_WEBHOOK = 4;
/**
 * How long a claimed delivery is held: an attempt ends within its timeout (DNS included), and its
 * result is recorded right after; if its process died meanwhile, the delivery comes due again then.
 */
const leaseMs = (timeoutMs: number) => 2 * timeoutMs + 1000;

export interface DeliveryWorkerDeps {
  db: Database;
  logger: Logger;
  deliveries: DeliveriesRepository;
  webhooks: WebhooksRepository;
  /** Opens each claimed delivery's secret, stored sealed, to sign it. */
  box: SecretBox;
  sender: SenderOptions;
  retry: RetryPolicy;
  pollMs: number;
}

/**
 * Sends due deliveries and records what came of each in the delivery log, which is also the retry
 * schedule: nothing waits in memory, so a restart of any replica loses nothing, and replicas share
 * the work (claims skip each other's rows). Sends run in a pool of MAX_IN_FLIGHT slots that never
 * waits for a whole batch: each slot that frees claims the next due delivery, so an endpoint that
 * takes its full timeout delays only its own deliveries (and holds at most MAX_IN_FLIGHT_PER_WEBHOOK
 * slots), never another project's.
 */
export class DeliveryWorker {
  readonly #deps: DeliveryWorkerDeps;
  readonly #task: PeriodicTask;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #sends = new Set<Promise<void>>();
  /** Sends in flight per webhook id; a webhook is absent when it has none. */
  readonly #inFlight = new Map<string, number>();

  constructor(deps: DeliveryWorkerDeps) {
    this.#deps = deps;
    this.#task = runPeriodically('webhook deliveries', deps.pollMs, deps.logger, () => this.#fillSlots());
  }

  /** Looks for due deliveries now (after the look in progress). */
  kick(): void {
    this.#task.kick();
  }

  /** Claims no more; resolves once the sends in flight are recorded (each ends within its timeout). */
  async stop(): Promise<void> {
    await this.#task.stop();
    await Promise.all(this.#sends);
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /** Starts due deliveries in the free slots, claiming until they are full or nothing more is due. */
  async #fillSlots(): Promise<void> {
    const { db, deliveries, sender } = this.#deps;
    for (;;) {
      const free = MAX_IN_FLIGHT - this.#sends.size;
      if (free <= 0) return;
      const claimed = await deliveries.claim(db, {
        limit: free,
        perWebhook: MAX_IN_FLIGHT_PER_WEBHOOK,
        inFlight: this.#inFlight,
        leaseMs: leaseMs(sender.timeoutMs),
      });
      if (claimed.length === 0) return;
      for (const delivery of claimed) this.#start(delivery);
    }
  }

  #start(delivery: ClaimedDelivery): void {
    const { webhookId } = delivery;
    this.#inFlight.set(webhookId, (this.#inFlight.get(webhookId) ?? 0) + 1);
    const send = this.#attempt(delivery)
      .catch((error: unknown) => {
        // Its lease runs out and it comes due again: a failed record loses nothing.
        this.#deps.logger.error({ err: error, eventId: delivery.eventId, webhookId }, 'recording a webhook delivery attempt failed');
      })
      .finally(() => {
        const left = (this.#inFlight.get(webhookId) ?? 1) - 1;
        if (left === 0) this.#inFlight.delete(webhookId);
        else this.#inFlight.set(webhookId, left);
        this.#sends.delete(send);
        this.kick();
      });
    this.#sends.add(send);
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const secret = this.#deps.box.open(delivery.secret, delivery.webhookId);
    const result = await sendDelivery({ ...delivery, secret }, this.#deps.sender);
    if (result.kind !== 'answered' && result.detail !== undefined) {
      // The operator may see what a name resolved to; the project's delivery log does not.
      const level = result.kind === 'refused' ? 'warn' : 'debug';
      this.#deps.logger[level]({ eventId: delivery.eventId, webhookId: delivery.webhookId, detail: result.detail }, `webhook delivery ${result.kind}`);
    }
    const settlement = settleAttempt(result, {
      attempts: delivery.attempts,
      createdAt: delivery.createdAt,
      now: new Date(),
      policy: this.#deps.retry,
      random: Math.random(),
    });
    await this.#record(delivery, settlement, result.kind === 'refused');
  }

  async #record(delivery: ClaimedDelivery, settlement: Settlement, refused: boolean): Promise<void> {
    const { db, deliveries, webhooks } = this.#deps;
    await db.transaction(async (tx) => {
      await deliveries.settle(tx, delivery.seq, settlement);
      if (settlement.status === 'failed' && settlement.disableWebhook) await webhooks.disable(tx, delivery.webhookId, settlement.error);
    });
    const metrics = deliveryMetrics();
    metrics.outcomes.add(1, { outcome: outcomeOf(settlement, refused) });
    if (settlement.status === 'delivered') metrics.lag.record((Date.now() - delivery.createdAt.getTime()) / 1000);
    if (settlement.status === 'pending') this.#wakeAt(settlement.nextAttemptAt);
  }

  /** The poll would find it too; a retry due sooner than that is sent on time. */
  #wakeAt(at: Date): void {
    const delay = at.getTime() - Date.now();
    if (delay >= this.#deps.pollMs) return;
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        this.kick();
      },
      Math.max(0, delay),
    );
    timer.unref();
    this.#timers.add(timer);
  }
}

function outcomeOf(settlement: Settlement, refused: boolean): string {
  if (settlement.status === 'delivered') return 'delivered';
  if (settlement.status === 'pending') return 'retried';
  if (refused) return 'refused';
  return settlement.disableWebhook ? 'disabled' : 'failed';
}
