import { Database, migrate } from '@lode/db';
import { SERVICES } from '@lode/system';
import type { Logger } from '@lode/telemetry';

/**
 * Applies every schema's pending migrations, one schema after another. Each schema takes the same
 * advisory lock a starting service takes, so the job and services starting beside it never apply
 * a file twice.
 */
export async function migrateAll(connectionString: string, logger: Logger): Promise<void> {
  for (const { schema, migrations } of SERVICES) {
    const db = new Database({ connectionString, schema, max: 1, applicationName: 'lode-migrate' });
    try {
      const { applied } = await migrate(db, migrations);
      logger.info({ schema, applied }, applied.length ? 'schema migrated' : 'schema up to date');
    } finally {
      await db.close();
    }
  }
}
