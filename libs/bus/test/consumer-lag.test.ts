import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { serveMetrics, startMetrics } from '@lode/telemetry/metrics-sdk';
import { LocalEvents, type JetStreamEvents } from '@lode/bus';
import { observeConsumerLag } from '../src/consumer-lag.ts';
import { logger, openJetStreamEvents, randomNamespace, sleep, tick, tickEvent } from './fixtures.ts';

// Started before any consumer, as in a service process: the gauges bind to this provider.
startMetrics('lode-consumer-lag-test');

const namespace = randomNamespace();
const EVENTS = 'lode_events_consumer_lag_events';
const SECONDS = 'lode_events_consumer_lag_seconds';

describe('JetStream consumer lag gauges', () => {
  let server: Server;
  let metricsUrl: string;
  let events: JetStreamEvents;
  let nc: NatsConnection;

  beforeAll(async () => {
    server = createServer(serveMetrics);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    metricsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    ({ events, nc } = await openJetStreamEvents(namespace, 'consumer-lag-test'));
  });

  afterAll(async () => {
    await events?.close();
    await events?.deleteStream();
    await nc?.drain();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** The value of a series for one consumer, or undefined when the scrape has none. */
  async function gauge(name: string, consumer: string): Promise<number | undefined> {
    const text = await (await fetch(metricsUrl)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`messaging_consumer_group_name="${consumer}"`));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  }

  it('reports the same gauges for an embedded (in-process) consumer, from its cursor', async () => {
    const local = new LocalEvents(logger);
    const contract = tickEvent();
    for (let n = 0; n < 3; n++) await local.publish(tick(contract, n));
    const release = Promise.withResolvers<void>();
    const consumer = await local.consume('local-lagging', contract, () => release.promise);
    try {
      // One event running, two waiting behind it in the log.
      await expect.poll(() => gauge(EVENTS, 'local-lagging'), { timeout: 10_000 }).toBe(3);
      await sleep(300);
      expect(await gauge(SECONDS, 'local-lagging')).toBeGreaterThanOrEqual(0.3);
      release.resolve();
      await expect.poll(() => gauge(EVENTS, 'local-lagging'), { timeout: 10_000 }).toBe(0);
      expect(await gauge(SECONDS, 'local-lagging')).toBe(0);
      // The SDK may keep exporting the last value of a callback it no longer calls: that value stays put.
      await consumer.stop();
      for (let n = 3; n < 5; n++) await local.publish(tick(contract, n));
      expect(await gauge(EVENTS, 'local-lagging')).toBe(0);
    } finally {
      release.resolve();
      await local.close();
    }
  });

  it('reports an unacknowledged backlog in events and in seconds, 0 once drained, and stops reading once the consumer stops', async () => {
    const contract = tickEvent();
    const publishedFrom = Date.now();
    for (let n = 0; n < 5; n++) await events.publish(tick(contract, n));
    const release = Promise.withResolvers<void>();
    const handled: number[] = [];
    const consumer = await events.consume('lagging', contract, async ({ n }) => {
      await release.promise;
      handled.push(n);
    });

    // One event held by the handler (ack pending), four not yet delivered.
    await expect.poll(() => gauge(EVENTS, 'lagging'), { timeout: 10_000 }).toBe(5);
    await sleep(300);
    const age = await gauge(SECONDS, 'lagging');
    expect(age).toBeGreaterThanOrEqual(0.3);
    expect(age).toBeLessThanOrEqual((Date.now() - publishedFrom) / 1000 + 0.1);
    const text = await (await fetch(metricsUrl)).text();
    expect(text).toContain(`messaging_destination_name="${contract.subject}"`);
    expect(text).not.toContain(namespace); // the label is the subject, not the namespaced filter

    release.resolve();
    await expect.poll(() => handled.length, { timeout: 10_000 }).toBe(5);
    await expect.poll(() => gauge(EVENTS, 'lagging'), { timeout: 10_000 }).toBe(0);
    expect(await gauge(SECONDS, 'lagging')).toBe(0);

    // The SDK may keep exporting the last value of a callback it no longer calls: that value stays put.
    await consumer.stop();
    for (let n = 5; n < 7; n++) await events.publish(tick(contract, n));
    expect(await gauge(EVENTS, 'lagging')).not.toBe(2);
  });

  it('measures the age from the oldest event of its own subject, not from other subjects on the stream', async () => {
    const other = tickEvent();
    const contract = tickEvent();
    for (let n = 0; n < 3; n++) await events.publish(tick(other, n));
    await sleep(400);
    const publishedFrom = Date.now();
    await events.publish(tick(contract, 0));
    const release = Promise.withResolvers<void>();
    const consumer = await events.consume('own-subject', contract, async () => {
      await release.promise;
    });
    try {
      await expect.poll(() => gauge(EVENTS, 'own-subject'), { timeout: 10_000 }).toBe(1);
      const age = await gauge(SECONDS, 'own-subject');
      expect(age).toBeGreaterThan(0);
      expect(age).toBeLessThanOrEqual((Date.now() - publishedFrom) / 1000 + 0.1);
    } finally {
      release.resolve();
      await consumer.stop();
    }
  });

  it('leaves the series out when the server cannot answer, and the scrape still succeeds', async () => {
    const jsm = await jetstreamManager(nc);
    const stop = observeConsumerLag({ jsm, streamName: events.streamName, name: 'never-created', filter: `${namespace}.none`, subject: 'none', logger });
    try {
      const response = await fetch(metricsUrl);
      expect(response.status).toBe(200);
      expect(await response.text()).not.toContain('messaging_consumer_group_name="never-created"');
    } finally {
      stop();
    }
  });

  it('answers a scrape without these series when the server stays silent', async () => {
    const silent = { consumers: { info: () => new Promise(() => undefined) } } as unknown as JetStreamManager;
    const stop = observeConsumerLag({ jsm: silent, streamName: events.streamName, name: 'silent', filter: `${namespace}.none`, subject: 'none', logger });
    try {
      const started = performance.now();
      const response = await fetch(metricsUrl);
      expect(response.status).toBe(200);
      expect(await response.text()).not.toContain('messaging_consumer_group_name="silent"');
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      stop();
    }
  });
});
