import path from 'node:path';

export const IDENTITY_SCHEMA = 'identity';
export const gatewayMigrations = path.join(import.meta.dirname, '..', 'migrations');

/** Services behind the gateway; /readyz pings each over the bus. */
export const PROJECT_SERVICES = ['upload', 'commit', 'lock', 'sync', 'restore'] as const;
