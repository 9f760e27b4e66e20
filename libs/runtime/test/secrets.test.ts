import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDirectory, persistentSecret, TRAVERSABLE_DIRECTORY } from '../src/secrets.ts';

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe('the data directory and its secrets are readable by Lode’s user only', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'lode-secrets-'));
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  it('makes the data directory 0700, each directory on the way, and a secret 0600', async () => {
    const dataDir = path.join(root, 'state', 'lode');
    const { value, created } = await persistentSecret(dataDir, 'admin-token');
    expect(created).toBe(true);
    expect(await modeOf(path.join(root, 'state'))).toBe(0o700);
    expect(await modeOf(dataDir)).toBe(0o700);
    expect(await modeOf(path.join(dataDir, 'admin-token'))).toBe(0o600);
    expect(await persistentSecret(dataDir, 'admin-token')).toEqual({ value, created: false });
  });

  it('tightens a data directory an earlier version made 0755', async () => {
    const dataDir = path.join(root, 'lode');
    await mkdir(dataDir);
    await chmod(dataDir, 0o755);
    await ensurePrivateDirectory(dataDir);
    expect(await modeOf(dataDir)).toBe(0o700);
  });

  it('lets other users only pass through a data directory made traversable, never list it', async () => {
    const dataDir = path.join(root, 'lode');
    await ensurePrivateDirectory(dataDir, TRAVERSABLE_DIRECTORY);
    expect(await modeOf(dataDir)).toBe(0o711);
  });
});
