/** Services behind the gateway's routes; /readyz pings each over the bus. */
export const PROJECT_SERVICES = ['identity', 'upload', 'commit', 'lock', 'sync', 'restore', 'webhooks'] as const;
