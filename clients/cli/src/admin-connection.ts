import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError, EXIT } from './failure.ts';
import { baseUrl } from './settings.ts';

/**
 * Where `lode admin` (`npm run admin`) finds the gateway and the admin token. A setting given as
 * blanks counts as not given; the token itself is never printed, only where it came from.
 */

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

const usageError = (message: string) => new CliError(message, { exitCode: EXIT.usage, code: 'usage' });

/** --url (checked as it was parsed), else $LODE_URL, else the gateway this machine's `npm start` runs: it listens on $PORT too. */
export function gatewayUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return flag;
  const fromEnv = nonEmpty(env.LODE_URL);
  if (fromEnv) {
    try {
      return baseUrl(fromEnv);
    } catch (error) {
      throw usageError(`LODE_URL (${fromEnv}): ${(error as Error).message}`);
    }
  }
  const port = nonEmpty(env.PORT) ?? '8080';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) throw usageError(`PORT must be a port number, not "${port}"`);
  return `http://localhost:${port}`;
}

export interface AdminToken {
  value: string;
  /** Where it came from, for a refusal to name: a wrong data dir is the usual cause. */
  source: string;
  fromFile: boolean;
}

/** --token, else $LODE_ADMIN_TOKEN, else the file embedded mode writes on its first start. */
export async function adminToken(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<AdminToken> {
  const fromFlag = nonEmpty(flag);
  if (fromFlag) return { value: fromFlag, source: '--token', fromFile: false };
  const fromEnv = nonEmpty(env.LODE_ADMIN_TOKEN);
  if (fromEnv) return { value: fromEnv, source: 'LODE_ADMIN_TOKEN', fromFile: false };
  const dataDir = nonEmpty(env.LODE_DATA_DIR);
  const file = path.resolve(dataDir ?? './.lode', 'admin-token');
  const fromFile = nonEmpty(await readFile(file, 'utf8').catch(() => undefined));
  if (fromFile)
    return { value: fromFile, source: `${file} (${dataDir ? `LODE_DATA_DIR=${dataDir}` : 'the default data dir: LODE_DATA_DIR is not set'})`, fromFile: true };
  throw usageError(
    dataDir
      ? `No admin token in ${file}: was the server started with LODE_DATA_DIR=${dataDir}? Run this with the LODE_DATA_DIR the server was started with, or set LODE_ADMIN_TOKEN (or pass --token).`
      : `No admin token in ${file} (LODE_DATA_DIR is not set). A server started with LODE_DATA_DIR=DIR keeps its token in DIR/admin-token: run this as LODE_DATA_DIR=DIR npm run admin -- ..., or set LODE_ADMIN_TOKEN (or pass --token).`,
  );
}

/** What to try when the server refuses the token: it is another server's, or another data dir's. */
export function tokenHint(token: AdminToken): string {
  const where = 'A server started with LODE_DATA_DIR=DIR keeps its token in DIR/admin-token';
  if (token.fromFile)
    return `The admin token was read from ${token.source}. ${where}: run this with the same LODE_DATA_DIR, or set LODE_ADMIN_TOKEN (or pass --token) to the server's token.`;
  return `The admin token came from ${token.source}, which goes before any data dir's admin-token: give the server's token there. ${where}.`;
}
