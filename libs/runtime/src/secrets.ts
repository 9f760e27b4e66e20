import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Only the user Lode runs as may list, read or enter it. */
export const PRIVATE_DIRECTORY = 0o700;
/**
 * As PRIVATE_DIRECTORY, except that other users may pass through to a directory inside whose name
 * they know, without listing or reading anything: for a data directory whose embedded Postgres runs
 * as a user of its own (when Lode runs as root) and must reach its database directory inside.
 */
export const TRAVERSABLE_DIRECTORY = 0o711;

/**
 * Makes a directory Lode keeps state in (the data directory: secrets, the embedded database, stored
 * blobs) its owner's only, every directory on the way included, and tightens one an earlier version
 * made with a wider mode: other local users have no business listing or reading it. One the process
 * does not own (a mount the operator prepared) is left as the operator made it.
 */
export async function ensurePrivateDirectory(dir: string, mode: typeof PRIVATE_DIRECTORY | typeof TRAVERSABLE_DIRECTORY = PRIVATE_DIRECTORY): Promise<void> {
  await mkdir(dir, { recursive: true, mode });
  await chmod(dir, mode).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPERM') throw error;
  });
}

/**
 * Embedded mode's secrets (admin token, URL-signing key): read from the data directory, or made
 * once and kept there (mode 0600) so restarts keep keys, URLs and cursors valid.
 */
export async function persistentSecret(dir: string, name: string): Promise<{ value: string; created: boolean }> {
  const file = path.join(dir, name);
  try {
    return { value: (await readFile(file, 'utf8')).trim(), created: false };
  } catch {
    // Made private if missing; an existing one keeps the mode its owner chose (ensurePrivateDirectory at start).
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIRECTORY });
    const value = randomBytes(32).toString('base64url');
    await writeFile(file, value, { mode: 0o600 });
    return { value, created: true };
  }
}
