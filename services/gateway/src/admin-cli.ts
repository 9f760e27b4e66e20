/**
 * The operator CLI: `npm run admin -- <command> [flags]`. It speaks only the admin HTTP API (never
 * the database), so it works the same against embedded mode on a laptop and a deployed gateway.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseCommandLine, usage, UsageError, type HttpCall, type Invocation, type QuickstartArgs } from './admin-cli-commands.ts';

const DEFAULT_URL = 'http://localhost:8080';
/** The largest page the API serves; --all asks for it unless told otherwise, to save round trips. */
const MAX_PAGE = 200;

/** The server answered with an error status; printed as `error <status> <code>: <message>`. */
class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The request never got an answer (server down, bad URL): also exit 1, but there is no status. */
class TransportError extends Error {}

interface Page {
  data: unknown[];
  nextCursor: string | null;
}

function isPage(value: unknown): value is Page {
  const v = value as Partial<Page> | null;
  return typeof v === 'object' && v !== null && Array.isArray(v.data) && (typeof v.nextCursor === 'string' || v.nextCursor === null);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** --token, else $LODE_ADMIN_TOKEN, else the file embedded mode writes on its first start. */
async function resolveToken(flag: string | undefined): Promise<string> {
  const given = nonEmpty(flag) ?? nonEmpty(process.env.LODE_ADMIN_TOKEN);
  if (given) return given;
  const file = path.resolve(nonEmpty(process.env.LODE_DATA_DIR) ?? './.lode', 'admin-token');
  const fromFile = nonEmpty(await readFile(file, 'utf8').catch(() => undefined));
  if (fromFile) return fromFile;
  throw new UsageError(`No admin token: pass --token, set LODE_ADMIN_TOKEN, or run embedded mode so that ${file} exists`);
}

class AdminClient {
  readonly #baseUrl: string;
  readonly #token: string;

  constructor(baseUrl: string, token: string) {
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#token = token;
  }

  async send<T = unknown>(call: HttpCall): Promise<T> {
    const url = this.#baseUrl + call.path;
    let response: Response;
    try {
      response = await fetch(url, {
        method: call.method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          accept: 'application/json',
          ...(call.body ? { 'content-type': 'application/json' } : {}),
        },
        body: call.body ? JSON.stringify(call.body) : undefined,
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new TransportError(`cannot reach ${url}: ${cause}`);
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (a proxy's error page, say): keep the text for the error line
    }
    if (!response.ok) {
      const failure = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; message?: unknown };
      throw new HttpError(
        response.status,
        typeof failure.code === 'string' ? failure.code : 'http_error',
        typeof failure.message === 'string' ? failure.message : text.slice(0, 200) || response.statusText,
      );
    }
    return body as T;
  }

  /** Follows nextCursor until the last page; keyset cursors make this safe while rows are added. */
  async sendAll(call: HttpCall): Promise<Page> {
    const url = new URL(call.path, 'http://cli.invalid');
    if (!url.searchParams.has('limit')) url.searchParams.set('limit', String(MAX_PAGE));
    const data: unknown[] = [];
    for (;;) {
      const page = await this.send({ ...call, path: url.pathname + url.search });
      if (!isPage(page)) throw new TransportError(`unexpected list response from ${call.path}`);
      data.push(...page.data);
      if (page.nextCursor === null) return { data, nextCursor: null };
      url.searchParams.set('cursor', page.nextCursor);
    }
  }
}

/**
 * Org, project, owner and key in one go. The project comes right after the org so that a bad
 * project slug is refused before any user exists; whatever was created is reported on failure.
 */
async function quickstart(client: AdminClient, args: QuickstartArgs) {
  const created: Record<string, string> = {};
  try {
    const org = await client.send<{ id: string }>({ method: 'POST', path: '/admin/v1/orgs', body: { name: args.orgName, slug: args.orgSlug } });
    created.orgId = org.id;
    const project = await client.send<{ id: string }>({
      method: 'POST',
      path: `/admin/v1/orgs/${org.id}/projects`,
      body: { name: args.projectName, slug: args.projectSlug },
    });
    created.projectId = project.id;
    const user = await client.send<{ id: string }>({ method: 'POST', path: '/admin/v1/users', body: { name: args.userName } });
    created.userId = user.id;
    await client.send({ method: 'POST', path: `/admin/v1/orgs/${org.id}/members`, body: { userId: user.id, role: 'owner' } });
    const key = await client.send<{ id: string; key: string }>({
      method: 'POST',
      path: `/admin/v1/projects/${project.id}/keys`,
      body: { userId: user.id },
    });
    process.stderr.write('Keep this key: it is shown only once.\n');
    return { orgId: org.id, projectId: project.id, userId: user.id, keyId: key.id, key: key.key };
  } catch (error) {
    if (Object.keys(created).length > 0) process.stderr.write(`quickstart stopped after creating ${JSON.stringify(created)}\n`);
    throw error;
  }
}

async function run(client: AdminClient, invocation: Exclude<Invocation, { kind: 'help' }>): Promise<unknown> {
  switch (invocation.kind) {
    case 'call':
      return client.send(invocation.call);
    case 'list':
      return invocation.all ? client.sendAll(invocation.call) : client.send(invocation.call);
    case 'quickstart':
      return quickstart(client, invocation.args);
  }
}

/** Returns the exit code: 0 done, 1 the server (or the network) said no, 2 a usage mistake. */
async function main(argv: string[]): Promise<number> {
  try {
    const { invocation, url, token } = parseCommandLine(argv);
    if (invocation.kind === 'help') {
      process.stdout.write(`${usage}\n`);
      return 0;
    }
    const client = new AdminClient(nonEmpty(url) ?? nonEmpty(process.env.LODE_URL) ?? DEFAULT_URL, await resolveToken(token));
    process.stdout.write(`${JSON.stringify(await run(client, invocation), null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${usage}\n`);
      return 2;
    }
    if (error instanceof HttpError) {
      process.stderr.write(`error ${error.status} ${error.code}: ${error.message}\n`);
      return 1;
    }
    if (error instanceof TransportError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
