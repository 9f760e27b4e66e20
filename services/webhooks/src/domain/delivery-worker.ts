import type { Database } from '@lode/db';
import { runPeriodically, type PeriodicTask } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import type { DeliveriesRepository } from '../repo/deliveries-repo.ts';
import type { WebhooksRepository } from '../repo/webhooks-repo.ts';
import { deliveryMetrics } from './delivery-metrics.ts';
import { settleAttempt, type RetryPolicy, type Settlement } from './retry-plan.ts';
import { sendDelivery, type SenderOptions } from './sender.ts';

/** Deliveries one claim takes; they are sent at once, in parallel. */
const BATCH = 20;
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
  sender: SenderOptions;
  retry: RetryPolicy;
  pollMs: number;
}

/**
 * Sends due deliveries and records what came of each in the delivery log, which is also the retry
 * schedule: nothing waits in memory, so a restart of any replica loses nothing, and replicas share
 * the work (claims skip each other's rows).
 */
export class DeliveryWorker {
  readonly #deps: DeliveryWorkerDeps;
  readonly #task: PeriodicTask;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(deps: DeliveryWorkerDeps) {
    this.#deps = deps;
    this.#task = runPeriodically('webhook deliveries', deps.pollMs, deps.logger, () => this.runOnce());
  }

  /** Sends what is due now (after the run in progress). */
  kick(): void {
    this.#task.kick();
  }

  /** Sends everything due, batch after batch; answers how many attempts were made. */
  async runOnce(): Promise<number> {
    const { db, deliveries, sender } = this.#deps;
    let attempts = 0;
    for (;;) {
      const claimed = await deliveries.claim(db, BATCH, leaseMs(sender.timeoutMs));
      await Promise.all(
        claimed.map(async (delivery) => {
          const result = await sendDelivery(delivery, sender);
          const settlement = settleAttempt(result, { attempts: delivery.attempts, createdAt: delivery.createdAt, now: new Date(), policy: this.#deps.retry, random: Math.random() });
          await this.#record(delivery.seq, delivery.webhookId, delivery.createdAt, settlement, result.kind === 'refused');
        }),
      );
      attempts += claimed.length;
      if (claimed.length < BATCH) return attempts;
    }
  }

  async stop(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await this.#task.stop();
  }

  async #record(seq: string, webhookId: string, createdAt: Date, settlement: Settlement, refused: boolean): Promise<void> {
    const { db, deliveries, webhooks } = this.#deps;
    await db.transaction(async (tx) => {
      await deliveries.settle(tx, seq, settlement);
      if (settlement.status === 'failed' && settlement.disableWebhook) await webhooks.disable(tx, webhookId, settlement.error);
    });
    const metrics = deliveryMetrics();
    metrics.outcomes.add(1, { outcome: outcomeOf(settlement, refused) });
    if (settlement.status === 'delivered') metrics.lag.record((Date.now() - createdAt.getTime()) / 1000);
    if (settlement.status === 'pending') this.#wakeAt(settlement.nextAttemptAt);
  }

  /** The poll would find it too; a retry due sooner than that is sent on time. */
  #wakeAt(at: Date): void {
    const delay = at.getTime() - Date.now();
    if (delay >= this.#deps.pollMs) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.kick();
    }, Math.max(0, delay));
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
