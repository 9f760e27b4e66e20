export { writeOutbox, type OutboxEvent } from './write.ts';
export { OutboxRelay, type RelayOptions } from './relay.ts';
