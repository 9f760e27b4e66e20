import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { connectNats, NatsBus } from '@lode/bus';
import { identity } from '@lode/contracts';
import { createLogger } from '@lode/telemetry';
import { TEST_NATS_URL, uniqueName } from '@lode/testkit';
import { identityKeyDirectory } from '../src/auth/key-directory.ts';

const logger = createLogger('test', 'silent');

/**
 * An identity replica that takes a key lookup and dies before answering: NATS routed the request
 * to it, so no "no responders" comes back, and only the caller's own clock can end the wait.
 */
describe('a key lookup taken by an identity replica that died', () => {
  const namespace = uniqueName('keydir');
  const subject = `${namespace}.${identity.resolveKey.subject}`;
  let nc: NatsConnection;
  let gateway: NatsBus;
  let live: NatsBus;
  let dying: Subscription;
  let taken = 0;

  beforeAll(async () => {
    nc = await connectNats(TEST_NATS_URL, 'test-key-directory');
    // The bus's own timeout is long: only a retry within it can answer the lookup in this test.
    gateway = new NatsBus(nc, logger, { namespace, timeoutMs: 25_000 });
    live = new NatsBus(nc, logger, { namespace });
    dying = nc.subscribe(subject, {
      queue: `lode.${identity.resolveKey.service}`,
      callback: () => {
        taken += 1;
        // Dies holding the request; the replacement replica starts serving.
        dying.unsubscribe();
        live.serve(identity.resolveKey, async () => ({ identity: null }));
      },
    });
    await nc.flush();
  });
  afterAll(async () => {
    await live?.close();
    await gateway?.close();
    await nc?.close();
  });

  it('is asked again of a live replica instead of waiting out the bus timeout', async () => {
    const keys = identityKeyDirectory(gateway);
    const keyHash = identity.apiKeyHash(`lode_${randomUUID().replaceAll('-', '')}`);
    await expect(keys.resolve(keyHash)).resolves.toBeUndefined();
    expect(taken).toBe(1);
  }, 60_000);
});
