import { parseArgs } from 'node:util';

/**
 * Argument parsing for the operator CLI (admin-cli.ts), on Node's own util.parseArgs: argv in, one
 * HTTP call (or a workflow of several, admin-cli-workflows.ts) out. Pure, so a usage mistake is
 * caught before anything reaches the server.
 */

/** A mistake in the command line: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** A project named by slugs: `path` holds PROJECT_SLOT where its id goes, found when the command runs. */
  project?: ProjectRef;
}

export const PROJECT_SLOT = '{project}';

const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface QuickstartArgs {
  orgSlug: string;
  orgName: string;
  projectSlug: string;
  projectName: string;
  userName: string;
  /** Given: the user made (or found without one) gets it, so the dashboard's invitations and single sign-on find them. */
  email: string | undefined;
}

/** A project by id, or by its organization's slug and its own (`studio/game`). */
export type ProjectRef = { id: string } | { orgSlug: string; projectSlug: string };

export interface InviteArgs {
  project: ProjectRef;
  /** A user id, or a name: the user is made when no user has it. */
  user: string;
  /** Omitted: a new member joins as `member`, an existing one keeps their role. */
  role: Role | undefined;
  /** As QuickstartArgs.email. */
  email: string | undefined;
}

/** Commands that take several admin calls. */
export type Workflow = { kind: 'quickstart'; args: QuickstartArgs } | { kind: 'invite'; args: InviteArgs } | { kind: 'sign-in-link'; user: string };

export type Invocation = { kind: 'help' } | { kind: 'call'; call: HttpCall } | { kind: 'list'; call: HttpCall; all: boolean } | Workflow;

export interface ParsedCommandLine {
  invocation: Invocation;
  url: string | undefined;
  token: string | undefined;
}

type Flags = (name: string) => string;

interface CommandSpec {
  usage: string;
  required: string[];
  optional?: string[];
  /** Lists take --limit, --cursor and --all and answer `{data, nextCursor}`. */
  list?: boolean;
  build: (flag: Flags, optional: (name: string) => string | undefined) => HttpCall | Workflow;
}

const seg = encodeURIComponent;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG_PAIR = /^([a-z0-9-]+)\/([a-z0-9-]+)$/;

function role(value: string): Role {
  const known = ROLES.find((r) => r === value);
  if (!known) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return known;
}

function projectRef(value: string): ProjectRef {
  if (UUID.test(value)) return { id: value };
  const pair = SLUG_PAIR.exec(value);
  if (!pair) throw new UsageError('--project must be a project id or <org-slug>/<project-slug>');
  return { orgSlug: pair[1], projectSlug: pair[2] };
}

/** A route of one project: by id as given; by slugs, its id is looked up as invite does (admin-cli-workflows.ts). */
function projectRoute(value: string, rest: string): Pick<HttpCall, 'path' | 'project'> {
  const project = projectRef(value);
  if ('id' in project) return { path: `/admin/v1/projects/${seg(project.id)}${rest}` };
  return { path: `/admin/v1/projects/${PROJECT_SLOT}${rest}`, project };
}

function positiveNumber(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number`);
  return n;
}

const commands: Record<string, CommandSpec> = {
  'orgs create': {
    usage: 'orgs create --name <name> --slug <slug>',
    required: ['name', 'slug'],
    build: (f) => ({ method: 'POST', path: '/admin/v1/orgs', body: { name: f('name'), slug: f('slug') } }),
  },
  'orgs list': { usage: 'orgs list', required: [], list: true, build: () => ({ method: 'GET', path: '/admin/v1/orgs' }) },
  'users create': {
    usage: 'users create --name <name> [--email <email>] [--avatar-url <url>]',
    required: ['name'],
    optional: ['email', 'avatar-url'],
    build: (f, o) => ({ method: 'POST', path: '/admin/v1/users', body: { name: f('name'), email: o('email'), avatarUrl: o('avatar-url') } }),
  },
  'users list': { usage: 'users list', required: [], list: true, build: () => ({ method: 'GET', path: '/admin/v1/users' }) },
  // Single sign-on finds a person by their verified email: how an existing user gets one.
  'users set-email': {
    usage: 'users set-email --user <userId> --email <email>',
    required: ['user', 'email'],
    build: (f) => ({ method: 'PATCH', path: `/admin/v1/users/${seg(f('user'))}`, body: { email: f('email') } }),
  },
  'members add': {
    usage: 'members add --org <orgId> --user <userId> --role owner|admin|member',
    required: ['org', 'user', 'role'],
    build: (f) => ({ method: 'POST', path: `/admin/v1/orgs/${seg(f('org'))}/members`, body: { userId: f('user'), role: role(f('role')) } }),
  },
  'members list': {
    usage: 'members list --org <orgId>',
    required: ['org'],
    list: true,
    build: (f) => ({ method: 'GET', path: `/admin/v1/orgs/${seg(f('org'))}/members` }),
  },
  'projects create': {
    usage: 'projects create --org <orgId> --name <name> --slug <slug> [--icon-url <url>] [--rate-per-second <n> --rate-burst <n>]',
    required: ['org', 'name', 'slug'],
    optional: ['icon-url', 'rate-per-second', 'rate-burst'],
    build: (f, o) => {
      const perSecond = o('rate-per-second');
      const burst = o('rate-burst');
      if ((perSecond === undefined) !== (burst === undefined)) throw new UsageError('--rate-per-second and --rate-burst go together');
      const writeRateLimit =
        perSecond === undefined || burst === undefined
          ? undefined
          : { perSecond: positiveNumber('rate-per-second', perSecond), burst: positiveNumber('rate-burst', burst) };
      return {
        method: 'POST',
        path: `/admin/v1/orgs/${seg(f('org'))}/projects`,
        body: { name: f('name'), slug: f('slug'), iconUrl: o('icon-url'), writeRateLimit },
      };
    },
  },
  'projects list': {
    usage: 'projects list --org <orgId>',
    required: ['org'],
    list: true,
    build: (f) => ({ method: 'GET', path: `/admin/v1/orgs/${seg(f('org'))}/projects` }),
  },
  'keys create': {
    usage: 'keys create --project <projectId|org-slug/project-slug> --user <userId>',
    required: ['project', 'user'],
    build: (f) => ({ method: 'POST', ...projectRoute(f('project'), '/keys'), body: { userId: f('user') } }),
  },
  'keys list': {
    usage: 'keys list --project <projectId|org-slug/project-slug>',
    required: ['project'],
    list: true,
    build: (f) => ({ method: 'GET', ...projectRoute(f('project'), '/keys') }),
  },
  'keys revoke': {
    usage: 'keys revoke --key <keyId>',
    required: ['key'],
    build: (f) => ({ method: 'DELETE', path: `/admin/v1/keys/${seg(f('key'))}` }),
  },
  'keys reset-device': {
    usage: 'keys reset-device --key <keyId>',
    required: ['key'],
    build: (f) => ({ method: 'POST', path: `/admin/v1/keys/${seg(f('key'))}/reset-device` }),
  },
  quickstart: {
    usage: 'quickstart --org-slug <slug> --project-slug <slug> --user-name <name> [--email <email>] [--org-name <name>] [--project-name <name>]',
    required: ['org-slug', 'project-slug', 'user-name'],
    optional: ['email', 'org-name', 'project-name'],
    build: (f, o) => ({
      kind: 'quickstart',
      args: {
        orgSlug: f('org-slug'),
        orgName: o('org-name') ?? f('org-slug'),
        projectSlug: f('project-slug'),
        projectName: o('project-name') ?? f('project-slug'),
        userName: f('user-name'),
        email: o('email'),
      },
    }),
  },
  'sign-in-link': {
    usage: 'sign-in-link --user <name|userId>',
    required: ['user'],
    build: (f) => ({ kind: 'sign-in-link', user: f('user') }),
  },
  invite: {
    usage: 'invite --project <projectId|org-slug/project-slug> --user <name|userId> [--email <email>] [--role owner|admin|member]',
    required: ['project', 'user'],
    optional: ['email', 'role'],
    build: (f, o) => {
      const given = o('role');
      return {
        kind: 'invite',
        args: { project: projectRef(f('project')), user: f('user'), role: given === undefined ? undefined : role(given), email: o('email') },
      };
    },
  },
};

const LIST_FLAGS = ['limit', 'cursor', 'all'];
const GLOBAL_FLAGS = ['url', 'token', 'help'];
const BOOLEAN_FLAGS = new Set(['all', 'help']);
const ALL_FLAGS = new Set([...GLOBAL_FLAGS, ...LIST_FLAGS, ...Object.values(commands).flatMap((c) => [...c.required, ...(c.optional ?? [])])]);

export const usage = `Usage: npm run admin -- <command> [flags]

Commands:
${Object.values(commands)
  .map((c) => `  ${c.usage}${c.list ? ' [--limit <n>] [--cursor <c>] [--all]' : ''}`)
  .join('\n')}
  help

Flags for every command:
  --url <url>       gateway base URL (default: $LODE_URL, else http://localhost:$PORT, PORT defaulting to 8080)
  --token <token>   admin token (default: $LODE_ADMIN_TOKEN, else <$LODE_DATA_DIR or ./.lode>/admin-token)

List commands print one page {data, nextCursor}; --all follows nextCursor and prints every row.
quickstart and invite reuse what exists (an org or project by slug, a user by name), always make
a new key and a dashboard sign-in link; run twice, they say on stderr what they found.
Output is the JSON response; an HTTP error prints "error <status> <code>: <message>" and exits 1.`;

export function parseCommandLine(argv: string[]): ParsedCommandLine {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    const options = Object.fromEntries([...ALL_FLAGS].map((f) => [f, { type: BOOLEAN_FLAGS.has(f) ? 'boolean' : 'string' } as const]));
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const url = typeof values.url === 'string' ? values.url : undefined;
  const token = typeof values.token === 'string' ? values.token : undefined;
  const name = parsed.positionals.join(' ');
  if (name === 'help' || (values.help === true && name === '')) return { invocation: { kind: 'help' }, url, token };
  if (name === '') throw new UsageError('No command given');

  const spec = commands[name];
  if (!spec) throw new UsageError(`Unknown command "${name}"`);
  const allowed = new Set([...GLOBAL_FLAGS, ...spec.required, ...(spec.optional ?? []), ...(spec.list ? LIST_FLAGS : [])]);
  const stray = Object.keys(values).filter((f) => values[f] !== undefined && !allowed.has(f));
  if (stray.length > 0) throw new UsageError(`"${name}" does not take ${stray.map((f) => `--${f}`).join(', ')}`);
  const missing = spec.required.filter((f) => typeof values[f] !== 'string' || values[f] === '');
  if (missing.length > 0) throw new UsageError(`"${name}" needs ${missing.map((f) => `--${f}`).join(', ')}`);

  const optional = (f: string) => (typeof values[f] === 'string' ? values[f] : undefined);
  const built = spec.build((f) => String(values[f]), optional);
  if ('kind' in built) return { invocation: built, url, token };
  if (!spec.list) return { invocation: { kind: 'call', call: built }, url, token };

  const query = new URLSearchParams();
  const limit = optional('limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit)) throw new UsageError('--limit must be a whole number');
    query.set('limit', limit);
  }
  const cursor = optional('cursor');
  if (cursor !== undefined) query.set('cursor', cursor);
  const path = query.size > 0 ? `${built.path}?${query.toString()}` : built.path;
  return { invocation: { kind: 'list', call: { ...built, path }, all: values.all === true }, url, token };
}
