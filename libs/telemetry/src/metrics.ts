import { metrics, type Attributes, type BatchObservableCallback, type MeterProvider, type Observable } from '@opentelemetry/api';

/** Seconds: from a cached-auth call (well under a millisecond) to a 25,000-file commit. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function createInstruments(provider: MeterProvider) {
  const meter = provider.getMeter('lode');
  const duration = (name: string, description: string) =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
  return {
    meter,
    httpServerDuration: duration('http.server.request.duration', 'HTTP requests served, by method, route and status'),
    busCallDuration: duration('lode.bus.call.duration', 'Bus requests made, by subject and outcome (ok or an error code)'),
    busHandlerDuration: duration('lode.bus.handler.duration', 'Bus requests handled, by subject and outcome'),
    rateLimitRejections: meter.createCounter('lode.ratelimit.rejections', { description: 'Writes refused by the per-project rate limit' }),
    authThrottled: meter.createCounter('lode.auth.throttled', {
      description:
        'Authentication attempts refused unexamined, their budget of failures spent: by credential (api-key, admin-token, sign-in-link) and budget (per address or key)',
    }),
    presignedUrls: meter.createCounter('lode.storage.presigned_urls', { description: 'Presigned URLs issued, by operation and driver' }),
    consumerPending: meter.createGauge('lode.events.consumer.pending', { description: 'Events after the one just handled that the consumer has yet to take' }),
    consumerDelay: duration('lode.events.consumer.delay', 'Time from publishing an event to a consumer finishing it, by consumer'),
    unhandledRejections: meter.createCounter('lode.process.unhandled_rejections', {
      description: 'Promise rejections no code handled, each logged at fatal level: every one is a bug',
    }),
  };
}

export type Instruments = ReturnType<typeof createInstruments>;

let current: { provider: MeterProvider; instruments: Instruments } | undefined;

/**
 * The process's instruments, bound to the global meter provider. Re-created if the provider changes
 * (metrics started after first use), so an early caller never keeps no-op instruments for good.
 * Without a provider they are the API's no-ops and cost a function call.
 */
export function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (current?.provider !== provider) current = { provider, instruments: createInstruments(provider) };
  return current.instruments;
}

export interface GaugeSpec {
  name: string;
  description: string;
  unit?: string;
}

/**
 * Gauges read together on each scrape (a pool's connections, the outbox's backlog and age), so one
 * read serves them all and they agree. Returns a function that stops observing, for components that
 * close before the process ends.
 */
export function observeGauges<K extends string>(
  gauges: Record<K, GaugeSpec>,
  read: (observe: (gauge: K, value: number, attributes?: Attributes) => void) => void | Promise<void>,
): () => void {
  const { meter } = instruments();
  const observables = Object.fromEntries(
    Object.entries<GaugeSpec>(gauges).map(([key, spec]) => [
      key,
      meter.createObservableGauge(spec.name, { description: spec.description, unit: spec.unit ?? '' }),
    ]),
  ) as Record<K, Observable>;
  const callback: BatchObservableCallback = async (result) => {
    await read((gauge, value, attributes) => result.observe(observables[gauge], value, attributes));
  };
  meter.addBatchObservableCallback(callback, Object.values(observables));
  return () => meter.removeBatchObservableCallback(callback, Object.values(observables));
}

/** Seconds since a performance.now() start, the unit every duration histogram records. */
export function secondsSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}
