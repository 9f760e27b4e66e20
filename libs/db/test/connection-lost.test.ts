import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@lode/errors';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { Database } from '../src/index.ts';

describe('a transaction whose backend is terminated while it waits on something else', () => {
  let database: TestDatabase;
  let db: Database;
  let admin: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: 'public', max: 2 });
    admin = new Database({ connectionString: database.url, schema: 'public', max: 1 });
  });
  afterAll(async () => {
    await Promise.all([db?.close(), admin?.close()]);
    await database?.drop();
  });

  /** Runs a transaction that, between two queries, waits until its backend has been terminated. */
  async function interrupted(): Promise<unknown> {
    return db
      .transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // As a commit waiting on another service's reply: no query of this client is running.
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
        await sleep(200);
        await tx.query('SELECT 1');
      })
      .catch((error: unknown) => error);
  }

  it('rolls back and answers 503 service_unavailable with a retry hint; the process lives and the pool recovers', async () => {
    for (let round = 0; round < 3; round++) {
      const failure = await interrupted();
      expect(failure).toBeInstanceOf(AppError);
      expect((failure as AppError).toJSON()).toMatchObject({ code: 'service_unavailable', retryAfterSeconds: 1 });
    }
    // The broken clients were destroyed, not handed out again.
    expect(await db.transaction(async (tx) => (await tx.query<{ one: number }>('SELECT 1 AS one')).rows[0].one)).toBe(1);
  });
});
