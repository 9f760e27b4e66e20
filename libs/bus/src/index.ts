export * from './bus.ts';
export { LocalBus } from './local-bus.ts';
export { NatsBus, type NatsBusOptions } from './nats-bus.ts';
export { connectNats, busSettings } from './connect.ts';
export { servePing } from './ping.ts';
export { SERVICE_NAMES, type ServiceName } from './service-names.ts';
export {
  EventDeferred,
  EventTooLargeError,
  type ConsumerOptions,
  type EventConsumer,
  type EventHandler,
  type EventMeta,
  type EventStream,
  type OutgoingEvent,
  type RetryBackoff,
} from './events.ts';
export { LocalEvents, type LocalEventsOptions } from './local-events.ts';
export { JetStreamEvents, type JetStreamEventsOptions } from './jetstream-events.ts';
export { connectService, type ServiceConnection, type BusConnectionSettings } from './service-connection.ts';
export { rpc, serveRpcs, type Rpc } from './rpc-table.ts';
export { consumeProjectPurges } from './project-purges.ts';
