import { chmod, mkdir } from 'node:fs/promises';

/**
 * Where, as root, what the Postgres user must reach is kept when it cannot reach it where it is
 * (root-owned, 0711: others may pass through to a folder whose name they know, never list it).
 */
export const ROOT_STATE_DIRECTORY = '/var/lib/lode';

export async function ensureRootStateDirectory(): Promise<string> {
  await mkdir(ROOT_STATE_DIRECTORY, { recursive: true, mode: 0o711 });
  await chmod(ROOT_STATE_DIRECTORY, 0o711);
  return ROOT_STATE_DIRECTORY;
}
