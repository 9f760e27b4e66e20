import { createServer } from 'node:net';

/**
 * A start-up refusal the operator can act on from one line (a port taken): printed as that line,
 * not as a log record with a stack.
 */
export class StartupRefusal extends Error {}

/** The ops port when LODE_OPS_PORT is not set: the documented one when free, else any free one. */
export const DEFAULT_OPS_PORT = 9464;

const HOST = '0.0.0.0';

export function portTaken(variable: string, port: number): StartupRefusal {
  return new StartupRefusal(`Lode cannot start: port ${port} (${variable}) is in use by another program. Set ${variable} to a free port.`);
}

/** Whether a server could listen on `port` now, on every interface as Lode's servers do. */
async function isFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
    probe.listen(port, HOST, () => probe.close(() => resolve(true)));
  });
}

/**
 * Refuses at once, before the embedded Postgres and the migrations, a port that is taken: the
 * operator learns it in a second, not after the whole start. (The real bind maps the same error,
 * for a port taken in between.)
 */
export async function ensurePortFree(variable: string, port: number): Promise<void> {
  if (!(await isFree(port))) throw portTaken(variable, port);
}

/** Runs `bind` and turns a taken port into the refusal naming `variable`. */
export async function bindPort<T>(variable: string, port: number, bind: () => Promise<T>): Promise<T> {
  return bind().catch((error: unknown) => {
    throw (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? portTaken(variable, port) : error;
  });
}

/** Refuses at once a port that is set (PORT has a default; LODE_OPS_PORT need not be set) and taken. */
export async function refuseTakenPorts(apiPort: number, opsPort: number | undefined): Promise<void> {
  await ensurePortFree('PORT', apiPort);
  if (opsPort !== undefined) await ensurePortFree('LODE_OPS_PORT', opsPort);
}

/**
 * Starts the ops server on LODE_OPS_PORT, or, unset, on the default port when free, else on one the
 * system picks: a second Lode on one machine then needs only its own PORT and LODE_DATA_DIR. Tried
 * by binding, not by asking first, so two Lodes starting at once cannot both be told it is free.
 */
export async function listenOps<T>(configured: number | undefined, start: (port: number) => Promise<T>): Promise<T> {
  if (configured !== undefined) return bindPort('LODE_OPS_PORT', configured, () => start(configured));
  return start(DEFAULT_OPS_PORT).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return start(0);
  });
}
