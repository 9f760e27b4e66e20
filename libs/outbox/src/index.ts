export { outboxTraceContext, writeOutbox, type OutboxEvent } from './write.ts';
export { OutboxRelay, type RelayOptions } from './relay.ts';
export { outboxMigrations, withOutbox } from './schema.ts';
export { DEFAULT_OUTBOX_OPTIONS, outboxOptions, outboxSettings, type OutboxOptions } from './settings.ts';
export { startOutbox, type RunningOutbox } from './service-outbox.ts';
