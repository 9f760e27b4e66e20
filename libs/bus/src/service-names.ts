/**
 * The services behind the bus, in the order they start, by name alone: the one list that the system
 * registry (services/system), the gateway's readiness check, the image's entry point and the deploy
 * checks all read, without loading any service's code. The registry defines each, and the compiler
 * holds its definitions to exactly this list.
 */
export const SERVICE_NAMES = ['identity', 'upload', 'commit', 'lock', 'sync', 'restore', 'webhooks'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
