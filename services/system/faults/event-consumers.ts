import { connectNats } from '@lode/bus';
import type { FaultSystem } from './fault-system.ts';

/** One durable consumer of the system's event stream, as JetStream accounts for it. */
export interface ConsumerState {
  name: string;
  /** Events of its subjects it has not been handed yet. */
  pending: number;
  /** Events handed out and not acknowledged: held by a replica, or by one that died until the ack wait passes. */
  ackPending: number;
  /** Events handed out more than once. */
  redelivered: number;
  /** The stream sequence below which every event is acknowledged. */
  ackFloor: number;
}

/** The system's event stream name, as the bus derives it from the namespace. */
export function eventStreamOf(system: FaultSystem): string {
  return `LODE_EVENTS_${system.stack.env.LODE_BUS_NAMESPACE.replaceAll(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** Every durable consumer of the event stream, asked through JetStream's API subjects. */
export async function eventConsumers(system: FaultSystem): Promise<ConsumerState[]> {
  const stream = eventStreamOf(system);
  const nc = await connectNats(system.nats.url, 'fault-checker');
  try {
    const ask = async <T>(subject: string): Promise<T> => JSON.parse(new TextDecoder().decode((await nc.request(subject, '{}', { timeout: 5000 })).data)) as T;
    const { consumers } = await ask<{ consumers: string[] | null }>(`$JS.API.CONSUMER.NAMES.${stream}`);
    const states: ConsumerState[] = [];
    for (const name of consumers ?? []) {
      const info = await ask<{ num_pending: number; num_ack_pending: number; num_redelivered: number; ack_floor: { stream_seq: number } }>(
        `$JS.API.CONSUMER.INFO.${stream}.${name}`,
      );
      states.push({
        name,
        pending: info.num_pending,
        ackPending: info.num_ack_pending,
        redelivered: info.num_redelivered,
        ackFloor: info.ack_floor.stream_seq,
      });
    }
    return states;
  } finally {
    await nc.close();
  }
}

export function describeConsumer(c: ConsumerState): string {
  return `consumer ${c.name}: ${c.pending} pending, ${c.ackPending} unacked (num_ack_pending), ${c.redelivered} redelivered (num_redelivered), ack floor ${c.ackFloor}`;
}
