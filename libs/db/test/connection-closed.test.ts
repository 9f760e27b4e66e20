import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { isAppError } from '@lode/errors';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { mapPgError } from '../src/index.ts';

const codeOf = (error: unknown) => (isAppError(error) ? error.code : `unmapped: ${String(error)}`);

/** The errors node-postgres itself throws when a connection goes away, which carry no SQLSTATE. */
describe('a connection that closes under its client', () => {
  let database: TestDatabase;
  let admin: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await database?.drop();
  });

  async function connected(): Promise<{ client: pg.Client; lost: Promise<Error> }> {
    const client = new pg.Client({ connectionString: database.url });
    const lost = new Promise<Error>((resolve) => client.on('error', resolve));
    await client.connect();
    return { client, lost };
  }

  it('is service_unavailable when the socket closes mid-query with no message from the server (a killed server, a cut network)', async () => {
    const { client, lost } = await connected();
    const running = client.query('SELECT pg_sleep(30)').catch((error: unknown) => error);
    // Closed on our side without a word, as a SIGKILLed server or a dropped route leaves it.
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const failure = await running;
    await lost;
    expect(codeOf(mapPgError(failure))).toBe('service_unavailable');
  });

  it('is service_unavailable when a client whose backend died is queried again', async () => {
    const { client, lost } = await connected();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await lost;
    const failure = await client.query('SELECT 1').catch((error: unknown) => error);
    expect(codeOf(mapPgError(failure))).toBe('service_unavailable');
  });
});
