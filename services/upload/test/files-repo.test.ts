import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, migrate } from '@lode/db';
import { AppError } from '@lode/errors';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { watchProcessErrors } from '@lode/testkit/process-errors';
import { UPLOAD_SCHEMA, uploadMigrations } from '@lode/upload';
import { FilesRepository } from '../src/repo/files-repo.ts';

/** Past int4: the versions lookup fails in Postgres (22003), whatever the edge let through. */
const BEYOND_INT4 = 2 ** 31;

describe('FilesRepository.resolve', () => {
  let database: TestDatabase;
  let db: Database;
  let repo: FilesRepository;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: UPLOAD_SCHEMA });
    await migrate(db, uploadMigrations);
    repo = new FilesRepository();
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('rejects with validation_failed when the versions lookup fails before the paths lookup ends, leaving no rejection unhandled', async () => {
    // The paths lookup waits behind a lock on `files`, so the versions lookup (which reads only
    // `versions`) is sure to fail first: the order in which an unhandled rejection used to kill the process.
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    await blocker.query(`BEGIN; LOCK TABLE ${UPLOAD_SCHEMA}.files IN ACCESS EXCLUSIVE MODE`);
    const watch = watchProcessErrors();
    try {
      const outcome = repo.resolve(db, randomUUID(), [randomUUID()], [BEYOND_INT4]).then(
        () => 'resolved',
        (error: unknown) => error,
      );
      // Either the call settles or the failure goes unhandled; both happen while the lock is held.
      await Promise.race([outcome, watch.first]);
      await blocker.query('ROLLBACK');
      const error = await outcome;
      await watch.settle();
      expect(watch.reasons).toEqual([]);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('validation_failed');
    } finally {
      watch.stop();
      await blocker.end();
    }
  });
});
