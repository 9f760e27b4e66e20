/**
 * The operator CLI: `npm run admin -- <command> [flags]`. It speaks only the admin HTTP API (never
 * the database), so it works the same against embedded mode on a laptop and a deployed gateway.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AdminClient, CliFailure, HttpError } from './admin-cli-client.ts';
import { parseCommandLine, usage, UsageError, type Invocation } from './admin-cli-commands.ts';
import { invite, quickstart, signInLink, withProjectId } from './admin-cli-workflows.ts';

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** --url, else $LODE_URL, else the gateway this machine's `npm start` runs: it listens on $PORT too. */
function baseUrl(flag: string | undefined): string {
  const given = nonEmpty(flag) ?? nonEmpty(process.env.LODE_URL);
  if (given) return given;
  const port = nonEmpty(process.env.PORT) ?? '8080';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) throw new UsageError(`PORT must be a port number, not "${port}"`);
  return `http://localhost:${port}`;
}

interface AdminToken {
  value: string;
  /** Where it came from, for a refusal to name: a wrong data dir is the usual cause. */
  source: string;
  fromFile: boolean;
}

/** --token, else $LODE_ADMIN_TOKEN, else the file embedded mode writes on its first start. */
async function resolveToken(flag: string | undefined): Promise<AdminToken> {
  const fromFlag = nonEmpty(flag);
  if (fromFlag) return { value: fromFlag, source: '--token', fromFile: false };
  const fromEnv = nonEmpty(process.env.LODE_ADMIN_TOKEN);
  if (fromEnv) return { value: fromEnv, source: 'LODE_ADMIN_TOKEN', fromFile: false };
  const dataDir = nonEmpty(process.env.LODE_DATA_DIR);
  const file = path.resolve(dataDir ?? './.lode', 'admin-token');
  const fromFile = nonEmpty(await readFile(file, 'utf8').catch(() => undefined));
  if (fromFile) return { value: fromFile, source: `${file} (${dataDir ? `LODE_DATA_DIR=${dataDir}` : 'the default data dir: LODE_DATA_DIR is not set'})`, fromFile: true };
  throw new UsageError(
    dataDir
      ? `No admin token in ${file}: was the server started with LODE_DATA_DIR=${dataDir}? Run this with the LODE_DATA_DIR the server was started with, or set LODE_ADMIN_TOKEN (or pass --token).`
      : `No admin token in ${file} (LODE_DATA_DIR is not set). A server started with LODE_DATA_DIR=DIR keeps its token in DIR/admin-token: run this as LODE_DATA_DIR=DIR npm run admin -- ..., or set LODE_ADMIN_TOKEN (or pass --token).`,
  );
}

/** What to try when the server refuses the token: it is another server's, or another data dir's. */
function tokenHint(token: AdminToken): string {
  const where = 'A server started with LODE_DATA_DIR=DIR keeps its token in DIR/admin-token';
  if (token.fromFile) return `The admin token was read from ${token.source}. ${where}: run this with the same LODE_DATA_DIR, or set LODE_ADMIN_TOKEN (or pass --token) to the server's token.`;
  return `The admin token came from ${token.source}, which goes before any data dir's admin-token: give the server's token there. ${where}.`;
}

const note = (line: string) => void process.stderr.write(`${line}\n`);

async function run(client: AdminClient, invocation: Exclude<Invocation, { kind: 'help' }>): Promise<unknown> {
  switch (invocation.kind) {
    case 'call':
      return client.send(await withProjectId(client, invocation.call));
    case 'list': {
      const call = await withProjectId(client, invocation.call);
      return invocation.all ? client.sendAll(call) : client.send(call);
    }
    case 'quickstart':
      return quickstart(client, note, invocation.args);
    case 'invite':
      return invite(client, note, invocation.args);
    case 'sign-in-link':
      return signInLink(client, note, invocation.user);
  }
}

/** Returns the exit code: 0 done, 1 the server (or the network) said no, 2 a usage mistake. */
async function main(argv: string[]): Promise<number> {
  let token: AdminToken | undefined;
  try {
    const parsed = parseCommandLine(argv);
    const { invocation } = parsed;
    if (invocation.kind === 'help') {
      process.stdout.write(`${usage}\n`);
      return 0;
    }
    token = await resolveToken(parsed.token);
    const client = new AdminClient(baseUrl(parsed.url), token.value);
    process.stdout.write(`${JSON.stringify(await run(client, invocation), null, 2)}\n`);
    return 0;
  } catch (error) {
    return reportFailure(error, token);
  }
}

/** The exit code of a failure, told on stderr. */
function reportFailure(error: unknown, token: AdminToken | undefined): number {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${usage}\n`);
    return 2;
  }
  if (error instanceof HttpError) {
    process.stderr.write(`error ${error.status} ${error.code}: ${error.message}\n`);
    if (error.status === 401 && token) process.stderr.write(`${tokenHint(token)}\n`);
    return 1;
  }
  if (error instanceof CliFailure) {
    process.stderr.write(`error: ${error.message}\n`);
    return 1;
  }
  throw error;
}

process.exitCode = await main(process.argv.slice(2));
