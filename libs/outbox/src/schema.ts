import path from 'node:path';
import type { LibraryMigrations, SchemaMigrations } from '@lode/db';

/** The `outbox` table's migrations, owned here and applied into each including service's own schema. */
export const outboxMigrations: LibraryMigrations = { name: 'outbox', directory: path.join(import.meta.dirname, '..', 'migrations') };

/**
 * A service's migrations with the outbox table in its schema, for `migrate(db, …)` and the migration
 * job alike: the service's own files first, then the library's, recorded as `outbox/0001`, ….
 *
 *   export const identityMigrations = withOutbox(path.join(import.meta.dirname, '..', 'migrations'));
 *   await migrate(db, identityMigrations);
 */
export function withOutbox(directory: string): SchemaMigrations {
  return { directory, libraries: [outboxMigrations] };
}
