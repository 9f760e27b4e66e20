import { z } from 'zod';
import { env } from '@lode/config';
import { outboxSettings } from '@lode/outbox';
import { decodeSecretsKey } from './domain/secret-box.ts';

const SECRETS_KEY_FORMAT = '32 random bytes in base64, e.g. openssl rand -base64 32';

/**
 * The key webhook secrets are encrypted with at rest; every replica must share it, and it must stay
 * the one they were encrypted with. The embedded mode keeps one in its data directory.
 */
export const secretsKeySetting = z
  .string({ error: (issue) => (issue.input === undefined ? `is required (${SECRETS_KEY_FORMAT})` : 'must be a string') })
  .refine((text) => decodeSecretsKey(text) !== undefined, `must be ${SECRETS_KEY_FORMAT}`);

/** Settings of the webhooks service, in its own process or embedded (docs/api.md, Webhooks). */
export const webhooksSettings = {
  /** Lets deliveries reach private, loopback and link-local addresses: tests and single-machine setups only. */
  LODE_WEBHOOK_ALLOW_PRIVATE: env.flag(false),
  /** First retry delay; each later one doubles it (with jitter), up to an hour apart. Tests make it tiny. */
  LODE_WEBHOOK_RETRY_BASE_MS: env.int(10_000, 1),
  /** How long a delivery is retried after its event before it is given up. */
  LODE_WEBHOOK_RETRY_WINDOW_MS: env.int(24 * 3_600_000, 1),
  /** How long one delivery attempt may take. */
  LODE_WEBHOOK_TIMEOUT_MS: env.int(15_000, 100),
  /** How often the delivery worker looks for due deliveries when nothing woke it. */
  LODE_WEBHOOK_POLL_MS: env.int(1000, 10),
  /** How long public events stay on the live feed (a reconnecting client older than this gets a reset). */
  LODE_FEED_RETENTION_MS: env.int(24 * 3_600_000, 1000),
  /**
   * The other services' outbox retention (the same variable they read): how far back the embedded
   * mode replays their events at start, so how long a recorded event's id must be remembered.
   */
  LODE_OUTBOX_RETENTION_MS: outboxSettings.LODE_OUTBOX_RETENTION_MS,
  LODE_SECRETS_KEY: secretsKeySetting,
};

export interface WebhooksConfig {
  allowPrivate: boolean;
  retryBaseMs: number;
  retryWindowMs: number;
  timeoutMs: number;
  pollMs: number;
  feedRetentionMs: number;
  outboxRetentionMs: number;
  /** AES-256 key of the webhook secrets at rest (domain/secret-box.ts). */
  secretsKey: Buffer;
}

export function webhooksConfig(config: {
  LODE_WEBHOOK_ALLOW_PRIVATE: boolean;
  LODE_WEBHOOK_RETRY_BASE_MS: number;
  LODE_WEBHOOK_RETRY_WINDOW_MS: number;
  LODE_WEBHOOK_TIMEOUT_MS: number;
  LODE_WEBHOOK_POLL_MS: number;
  LODE_FEED_RETENTION_MS: number;
  LODE_OUTBOX_RETENTION_MS: number;
  LODE_SECRETS_KEY: string;
}): WebhooksConfig {
  const secretsKey = decodeSecretsKey(config.LODE_SECRETS_KEY);
  if (!secretsKey) throw new Error(`LODE_SECRETS_KEY must be ${SECRETS_KEY_FORMAT}`);
  return {
    allowPrivate: config.LODE_WEBHOOK_ALLOW_PRIVATE,
    retryBaseMs: config.LODE_WEBHOOK_RETRY_BASE_MS,
    retryWindowMs: config.LODE_WEBHOOK_RETRY_WINDOW_MS,
    timeoutMs: config.LODE_WEBHOOK_TIMEOUT_MS,
    pollMs: config.LODE_WEBHOOK_POLL_MS,
    feedRetentionMs: config.LODE_FEED_RETENTION_MS,
    outboxRetentionMs: config.LODE_OUTBOX_RETENTION_MS,
    secretsKey,
  };
}
