import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Embedded mode's secrets (admin token, URL-signing key): read from the data directory, or made
 * once and kept there (mode 0600) so restarts keep keys, URLs and cursors valid.
 */
export async function persistentSecret(dir: string, name: string): Promise<{ value: string; created: boolean }> {
  const file = path.join(dir, name);
  try {
    return { value: (await readFile(file, 'utf8')).trim(), created: false };
  } catch {
    await mkdir(dir, { recursive: true });
    const value = randomBytes(32).toString('base64url');
    await writeFile(file, value, { mode: 0o600 });
    return { value, created: true };
  }
}
