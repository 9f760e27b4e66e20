import { commitMigrations, COMMIT_SCHEMA } from '@lode/commit';
import { gatewayMigrations, IDENTITY_SCHEMA } from '@lode/gateway';
import { lockMigrations, LOCK_SCHEMA } from '@lode/lock';
import { restoreMigrations, RESTORE_SCHEMA } from '@lode/restore';
import { syncMigrations, SYNC_SCHEMA } from '@lode/sync';
import { uploadMigrations, UPLOAD_SCHEMA } from '@lode/upload';

/**
 * Every schema of a multi-process deployment and the directory of its SQL migrations, taken from
 * the owning service so the job and the services' own start-up migrate from the same files.
 */
export const SERVICE_SCHEMAS: readonly { schema: string; migrations: string }[] = [
  { schema: IDENTITY_SCHEMA, migrations: gatewayMigrations },
  { schema: UPLOAD_SCHEMA, migrations: uploadMigrations },
  { schema: COMMIT_SCHEMA, migrations: commitMigrations },
  { schema: LOCK_SCHEMA, migrations: lockMigrations },
  { schema: SYNC_SCHEMA, migrations: syncMigrations },
  { schema: RESTORE_SCHEMA, migrations: restoreMigrations },
];
