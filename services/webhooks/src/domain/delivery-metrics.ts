import { instruments, type Instruments } from '@lode/telemetry';

type Counter = ReturnType<Instruments['meter']['createCounter']>;
type Histogram = ReturnType<Instruments['meter']['createHistogram']>;

/** Seconds from an event being recorded to its delivery: from a fraction of a second to a day of retries. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21_600, 86_400];

let created: { meter: Instruments['meter']; outcomes: Counter; lag: Histogram } | undefined;

/** The webhooks' series, bound to the process's meter (re-created if metrics started after first use). */
export function deliveryMetrics(): { outcomes: Counter; lag: Histogram } {
  const { meter } = instruments();
  if (created?.meter !== meter) {
    created = {
      meter,
      outcomes: meter.createCounter('lode.webhooks.deliveries', {
        description: 'Webhook delivery attempts, by outcome: delivered, retried, failed, disabled, refused',
      }),
      lag: meter.createHistogram('lode.webhooks.delivery.lag', {
        unit: 's',
        description: 'Time from an event being recorded to its webhook delivery succeeding',
        advice: { explicitBucketBoundaries: LAG_BUCKETS },
      }),
    };
  }
  return created;
}
