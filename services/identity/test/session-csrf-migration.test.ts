import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions } from '@lode/contracts';
import { Database, migrate } from '@lode/db';
import { outboxMigrations } from '@lode/outbox';
import { createTestDatabase, migrationsBefore, type OldMigrations, type TestDatabase } from '@lode/testkit/database';
import { IDENTITY_SCHEMA, identityMigrations } from '../src/index.ts';

describe('sessions on the upgrade to hashed CSRF tokens (migration 0003)', () => {
  let database: TestDatabase;
  let before0003: OldMigrations;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 2 });
    before0003 = await migrationsBefore(identityMigrations.directory, '0003');
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
    await before0003?.remove();
  });

  it('ends every session that kept its CSRF token in plaintext, leaving no column that could hold one', async () => {
    await migrate(db, { directory: before0003.directory, libraries: [outboxMigrations] });
    const userId = randomUUID();
    await db.query(`INSERT INTO users (id, name) VALUES ($1, 'Ada')`, [userId]);
    await db.query(`INSERT INTO sessions (id, token_hash, csrf_token, user_id) VALUES ($1, decode($2, 'hex'), $3, $4)`, [
      randomUUID(),
      sessions.tokenHash('a-session-token'),
      'a-plaintext-csrf-token',
      userId,
    ]);

    await migrate(db, identityMigrations);
    expect((await db.query('SELECT * FROM sessions')).rows).toEqual([]);
    const { rows } = await db.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'sessions' AND column_name LIKE 'csrf%'`,
      [IDENTITY_SCHEMA],
    );
    expect(rows).toEqual([{ column_name: 'csrf_token_hash', data_type: 'bytea' }]);
  });
});
