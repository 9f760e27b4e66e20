import { z } from 'zod';
import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Bus settings of every multi-process service. */
export const busSettings = {
  NATS_URL: z.string().min(1),
  /** Prefix for every subject: lets test runs share one NATS server without meeting. */
  LODE_BUS_NAMESPACE: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
  LODE_BUS_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
};

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url.split(','), name, maxReconnectAttempts: -1 });
}
