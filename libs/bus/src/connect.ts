import { z } from 'zod';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@lode/telemetry';

/** Bus settings of every multi-process service. */
export const busSettings = {
  NATS_URL: z.string().min(1),
  /** Prefix for every subject: lets test runs share one NATS server without meeting. */
  LODE_BUS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional(),
  LODE_BUS_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
};

/** Between redials: a restarted NATS server is found within about half a second of accepting connections. */
const RECONNECT_WAIT_MS = 250;
/** Up to this much more at random, so a fleet of processes does not redial in step. */
const RECONNECT_JITTER_MS = 250;
/** How long a first connect goes unanswered before the process says what it is waiting for. */
const WAITING_NOTICE_MS = 2_000;

/**
 * Connects, retrying forever: a process started while NATS is down waits for it (its /readyz
 * answers 503 meanwhile) instead of exiting, and a connection that drops redials until the server
 * is back, resubscribing everything.
 *
 * Without async traces: nats.js would otherwise build an Error (a captured stack) for every request
 * and every timeout it arms, whether it fails or not, and the outbox relay makes one such request per
 * event it publishes to JetStream. A failure still rejects with nats.js's error, naming what failed,
 * only without the stack of the call that started it.
 */
export async function connectNats(url: string, name: string, logger?: Logger): Promise<NatsConnection> {
  const servers = url.split(',');
  const notice = setTimeout(() => logger?.warn({ servers }, 'NATS not reachable yet: retrying until it is'), WAITING_NOTICE_MS);
  try {
    return await connect({
      servers,
      name,
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
      reconnectTimeWait: RECONNECT_WAIT_MS,
      reconnectJitter: RECONNECT_JITTER_MS,
      noAsyncTraces: true,
    });
  } finally {
    clearTimeout(notice);
  }
}
