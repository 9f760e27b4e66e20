import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, LocalEvents } from '@lode/bus';
import { webhooks } from '@lode/contracts';
import { ConfigError } from '@lode/config';
import { configure, serviceNamed } from '@lode/system';
import { createLogger } from '@lode/telemetry';
import { startWebhooksService } from '../src/start.ts';
import { eventually, Receiver } from './receiver.ts';
import { standaloneWebhooks } from './standalone.ts';

const logger = createLogger('test', 'silent');

describe('webhook secrets at rest', () => {
  const secretsKey = randomBytes(32);
  const alone = standaloneWebhooks({ allowPrivate: true, secretsKey });
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(async () => receiver?.stop());

  const projectId = randomUUID();
  // An org owner manages them: the service asks the identity service about an operator's project, and runs alone here.
  const manager = { projectId, role: 'owner' as const };
  const stored = async (id: string) => (await alone.db.query<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [id])).rows[0].secret;
  /** Pings the webhook; the receiver verifies the delivery's signature with `secret` (401 otherwise). */
  const pingVerifiedWith = async (webhookId: string, secret: string) => {
    receiver.secret = secret;
    const { eventId } = await alone.bus.call(webhooks.ping, { manager, webhookId });
    await eventually('the ping delivered with a valid signature', () => receiver.delivered('webhook.ping').some((r) => JSON.parse(r.body).id === eventId));
  };

  it('are stored encrypted, never as issued, and deliveries are signed with the secret as issued', async () => {
    const hook = await alone.bus.call(webhooks.create, { manager, url: receiver.url, events: ['lock.acquired'] });
    const column = await stored(hook.id);
    expect(column).toMatch(/^v1:/);
    expect(column).not.toContain(hook.secret.slice('whsec_'.length));
    await pingVerifiedWith(hook.id, hook.secret);

    const rotated = await alone.bus.call(webhooks.update, { manager, webhookId: hook.id, changes: { rotateSecret: true } });
    if (rotated.secret === undefined) throw new Error('no secret after rotation');
    const rotatedColumn = await stored(hook.id);
    expect(rotatedColumn).toMatch(/^v1:/);
    expect(rotatedColumn).not.toBe(column);
    expect(rotatedColumn).not.toContain(rotated.secret.slice('whsec_'.length));
    await pingVerifiedWith(hook.id, rotated.secret);
    expect(receiver.refusedSignatures).toEqual([]);
  });

  it('encrypts a secret an earlier version stored as issued at start, and signs with it as before', async () => {
    const id = randomUUID();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    await alone.db.query(`INSERT INTO webhooks (id, project_id, url, events, secret) VALUES ($1, $2, $3, '{lock.acquired}', $4)`, [
      id,
      projectId,
      receiver.url,
      secret,
    ]);
    // Read as it is until then: a replica of this version beside the row signs correctly already.
    await pingVerifiedWith(id, secret);

    await alone.restart();
    const column = await stored(id);
    expect(column).toMatch(/^v1:/);
    expect(column).not.toContain(secret.slice('whsec_'.length));
    await pingVerifiedWith(id, secret);
    const { rows } = await alone.db.query<{ plain: number }>(`SELECT count(*)::int AS plain FROM webhooks WHERE NOT starts_with(secret, 'v1:')`);
    expect(rows[0].plain).toBe(0);
  });

  it('refuses to start with another key than the stored secrets were encrypted with, saying so', async () => {
    await alone.bus.call(webhooks.create, { manager, url: receiver.url, events: ['lock.acquired'] });
    const bus = new LocalBus(logger);
    const events = new LocalEvents(logger);
    try {
      const config = {
        retryBaseMs: 20,
        retryWindowMs: 60_000,
        timeoutMs: 2000,
        pollMs: 1000,
        feedRetentionMs: 60_000,
        outboxRetentionMs: 60_000,
        allowPrivate: true,
      };
      await expect(startWebhooksService({ db: alone.db, bus, events, logger, config: { ...config, secretsKey: randomBytes(32) } })).rejects.toThrow(
        /^LODE_SECRETS_KEY does not decrypt the stored webhook secrets .*: it is not the key they were encrypted with/,
      );
    } finally {
      await events.close();
      await bus.close();
    }
  });
});

describe('the webhooks service configured without a usable LODE_SECRETS_KEY', () => {
  const configureWebhooks = (environment: Record<string, string>) => () => configure([serviceNamed('webhooks')], environment);

  it('does not start, and names the variable and the format it wants', () => {
    expect(configureWebhooks({})).toThrow(ConfigError);
    expect(configureWebhooks({})).toThrow(/LODE_SECRETS_KEY: is required \(32 random bytes in base64, e\.g\. openssl rand -base64 32\)/);
    for (const bad of ['not a key', randomBytes(16).toString('base64'), randomBytes(48).toString('hex')]) {
      expect(configureWebhooks({ LODE_SECRETS_KEY: bad })).toThrow(/LODE_SECRETS_KEY: must be 32 random bytes in base64/);
    }
    expect(configureWebhooks({ LODE_SECRETS_KEY: randomBytes(32).toString('base64') })).not.toThrow();
  });
});
