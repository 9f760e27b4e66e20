import { afterAll, beforeAll } from 'vitest';
import { Database, migrate } from '@lode/db';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { UPLOAD_SCHEMA, uploadMigrations } from '@lode/upload';

/** A database of its own with the upload schema, for the describe that calls it; `db` and `url` once it is up. */
export function uploadDatabase(): { readonly db: Database; readonly url: string } {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: UPLOAD_SCHEMA });
    await migrate(db, uploadMigrations);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });
  return {
    get db() {
      return db;
    },
    get url() {
      return database.url;
    },
  };
}
