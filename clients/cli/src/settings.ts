import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import path from 'node:path';
import { CliError, EXIT } from './failure.ts';
import { writeJsonFile } from './json-file.ts';

/** What `lode login` keeps: the server, the key, and this machine's device id. */
export interface Settings {
  url?: string;
  key?: string;
  /** A device name chosen with `--device`; else `deviceId`. */
  device?: string;
  /** Generated once per machine, so a key stays bound to it. */
  deviceId?: string;
}

export interface Connection {
  url: string;
  key: string;
  deviceId: string;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.APPDATA) || path.join(homedir(), '.config');
  return path.join(base, 'lode');
}

const configFile = () => path.join(configDir(), 'config.json');

export async function readSettings(): Promise<Settings> {
  try {
    return JSON.parse(await readFile(configFile(), 'utf8')) as Settings;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`Cannot read ${configFile()}: ${(error as Error).message}`);
  }
}

/** Readable by its owner only: it holds a key. */
export async function writeSettings(settings: Settings): Promise<string> {
  const file = configFile();
  await writeJsonFile(file, settings, { mode: 0o600, dirMode: 0o700, indent: 2 });
  return file;
}

/** This machine's device id, made (and saved) on first use. */
export async function ensureDeviceId(settings: Settings): Promise<string> {
  if (!settings.deviceId) {
    settings.deviceId = `${
      hostname()
        .replace(/[^\x21-\x7e]/g, '')
        .slice(0, 60) || 'device'
    }-${randomUUID()}`;
    await writeSettings(settings);
  }
  return settings.deviceId;
}

/**
 * A server's base URL as the SDK joins `/api/v1/…` to it: one copied with the API's prefix
 * (`…/api/v1`) or a trailing slash is taken as its base; one without http(s):// is refused.
 */
export function baseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error("Expected the server's address with its scheme, e.g. https://lode.example.com or http://localhost:8080.");
  if (url.search || url.hash) throw new Error("Expected the server's base URL, without a query or fragment.");
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return url.href.replace(/\/+$/, '');
}

/** The connection to use: LODE_URL, LODE_KEY and LODE_DEVICE override what `lode login` saved. */
export async function resolveConnection(env: NodeJS.ProcessEnv = process.env): Promise<Connection> {
  const settings = await readSettings();
  const url = env.LODE_URL ? fromEnv(env.LODE_URL) : settings.url;
  const key = env.LODE_KEY || settings.key;
  if (!url || !key) throw new CliError('Not logged in: run `lode login --url URL --key KEY` (or set LODE_URL and LODE_KEY).', { code: 'not_logged_in' });
  const deviceId = env.LODE_DEVICE || settings.device || (await ensureDeviceId(settings));
  return { url, key, deviceId };
}

function fromEnv(value: string): string {
  try {
    return baseUrl(value);
  } catch (error) {
    throw new CliError(`LODE_URL (${value}): ${(error as Error).message}`, { exitCode: EXIT.usage, code: 'usage' });
  }
}
