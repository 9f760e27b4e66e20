import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, LocalEvents } from '@lode/bus';
import { Database } from '@lode/db';
import { createLogger } from '@lode/telemetry';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { IDENTITY_SCHEMA, identityMigrations, startIdentityService } from '../src/index.ts';

/** What every database the gateway migrated recorded for identity/0001 (sha256 of services/gateway/migrations/0001_init.sql). */
const GATEWAY_RECORDED_CHECKSUM = '0951285b44d26f9c2e001e82f4cff75acad1b40fb57e2a44582b192e21a36245';

describe('the identity schema, taken over from the gateway', () => {
  const logger = createLogger('test', 'silent');
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('starts on a database the gateway migrated, keeping its rows and adding only what is new', async () => {
    // The schema as the gateway left it: its 0001 applied and recorded, an org in it.
    const sql = await readFile(path.join(identityMigrations.directory, '0001_init.sql'), 'utf8');
    await db.query(`CREATE SCHEMA ${IDENTITY_SCHEMA}`);
    await db.query(sql);
    await db.query(
      `CREATE TABLE schema_migrations (version text PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await db.query(`INSERT INTO schema_migrations (version, name, checksum) VALUES ('0001', '0001_init.sql', $1)`, [GATEWAY_RECORDED_CHECKSUM]);
    await db.query(`INSERT INTO orgs (id, name, slug) VALUES (gen_random_uuid(), 'Studio', 'studio')`);

    const bus = new LocalBus(logger);
    const events = new LocalEvents(logger);
    const identity = await startIdentityService({
      db,
      bus,
      events,
      logger,
      cursorSecret: 'x'.repeat(32),
      outbox: { relay: false, pollMs: 1000, retentionMs: 60_000 },
    });
    try {
      const { rows } = await db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      // Every later migration of the service is applied once, then the outbox's.
      const own = (await readdir(identityMigrations.directory))
        .filter((f) => f.endsWith('.sql'))
        .map((f) => f.slice(0, 4))
        .sort();
      expect(own.slice(0, 2)).toEqual(['0001', '0002']);
      expect(rows.map((r) => r.version)).toEqual([...own, 'outbox/0001']);
      expect((await db.query('SELECT slug FROM orgs')).rows).toEqual([{ slug: 'studio' }]);
    } finally {
      await identity.stop();
      await bus.close();
      await events.close();
    }
  });
});
