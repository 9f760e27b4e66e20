/**
 * The services behind the bus, in the order they start, by name alone: what the image's entry point
 * and the deploy checks need without loading any service's code. Each has its definition in
 * registry.ts, which the compiler holds to exactly this list.
 */
export const SERVICE_NAMES = ['identity', 'upload', 'commit', 'lock', 'sync', 'restore', 'webhooks'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
