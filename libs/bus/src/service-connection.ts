import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@lode/telemetry';
import { connectNats } from './connect.ts';
import { JetStreamEvents } from './jetstream-events.ts';
import { NatsBus } from './nats-bus.ts';

export interface BusConnectionSettings {
  NATS_URL: string;
  LODE_BUS_NAMESPACE?: string | undefined;
  LODE_BUS_TIMEOUT_MS: number;
}

export interface ServiceConnection {
  nc: NatsConnection;
  bus: NatsBus;
  events: JetStreamEvents;
  /** Closes the bus (in-flight handlers finish), then the event consumers, then drains the connection. */
  close: () => Promise<void>;
}

/** A service process's one NATS connection, with its request-reply bus and its event stream. */
export async function connectService(settings: BusConnectionSettings, service: string, logger: Logger): Promise<ServiceConnection> {
  const nc = await connectNats(settings.NATS_URL, `lode-${service}`, logger);
  const bus = new NatsBus(nc, logger, { namespace: settings.LODE_BUS_NAMESPACE, timeoutMs: settings.LODE_BUS_TIMEOUT_MS });
  const events = await JetStreamEvents.connect(nc, logger, { namespace: settings.LODE_BUS_NAMESPACE });
  return {
    nc,
    bus,
    events,
    close: async () => {
      await bus.close();
      await events.close();
      await nc.drain();
    },
  };
}
