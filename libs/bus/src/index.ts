export * from './bus.ts';
export { LocalBus } from './local-bus.ts';
export { NatsBus, type NatsBusOptions } from './nats-bus.ts';
export { connectNats, busSettings } from './connect.ts';
