import { InvalidArgumentError, Option, type Command } from 'commander';
import { allPages, LodeAdminClient, LodeApiError, LodeNetworkError, type Page, type PageQuery, type Role } from '@lode/sdk';
import { adminToken, gatewayUrl, tokenHint, type AdminToken } from '../admin-connection.ts';
import { invite, projectId, quickstart, signInLink, UUID, type AdminSession, type ProjectRef } from '../admin-workflows.ts';
import { retryNotes, type GlobalOptions } from '../context.ts';
import { CliError, EXIT } from '../failure.ts';
import { Output } from '../output.ts';
import { interruption } from '../run.ts';
import { MAX_PAGE, serverUrl, wholeNumber } from './option-values.ts';

/**
 * `lode admin …`, which `npm run admin -- …` runs: the operators' API (LodeAdminClient), never the
 * database, so it works the same against embedded mode on a laptop and a deployed gateway. The
 * answer is printed as indented JSON; exit 0 done, 1 the server (or the network) said no, 2 a
 * usage mistake, told with the usage.
 */

interface AdminOptions extends GlobalOptions {
  url?: string;
  token?: string;
}

interface ListOptions {
  limit?: number;
  cursor?: string;
  all?: boolean;
}

/** What a command does with the server: its answer is what it prints. */
type AdminCall = (admin: AdminSession) => Promise<unknown>;

const ROLES: readonly Role[] = ['owner', 'admin', 'member'];
const SLUG_PAIR = /^([a-z0-9-]+)\/([a-z0-9-]+)$/;

function projectRef(value: string): ProjectRef {
  if (UUID.test(value)) return { id: value };
  const pair = SLUG_PAIR.exec(value);
  if (!pair) throw new InvalidArgumentError('Expected a project id or <org-slug>/<project-slug>.');
  return { orgSlug: pair[1], projectSlug: pair[2] };
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('Expected a positive number.');
  return n;
}

const projectOption = () =>
  new Option('--project <projectId|org-slug/project-slug>', 'the project, by id or by slugs').argParser(projectRef).makeOptionMandatory();
const roleOption = () => new Option('--role <owner|admin|member>', 'the role in the organization').choices(ROLES);

/** One page as asked (`{data, nextCursor}`), or with --all every row, following nextCursor from --cursor on. */
async function listing<T>(options: ListOptions, list: (page: PageQuery) => Promise<Page<T>>): Promise<Page<T>> {
  if (!options.all) return list({ limit: options.limit, cursor: options.cursor });
  const data = await allPages((cursor) => list({ limit: options.limit ?? MAX_PAGE, cursor: cursor ?? options.cursor }));
  return { data, nextCursor: null };
}

export function adminCommands(program: Command): void {
  const admin: Command = program
    .command('admin')
    .description('operate a Lode server through its admin API (the same as `npm run admin -- …`; `lode admin help` lists the commands)')
    // Set before the subcommands are made, which take it over: any of them shows the one usage.
    .configureHelp({ formatHelp: () => usage(admin) });
  connectionOptions(admin);
  const group = (name: string, description: string) => connectionOptions(admin.command(name).description(description));
  /** A command that makes one admin call, or several: `plan` checks the options before any token is looked for. */
  const command = <O>(parent: Command, name: string, description: string, define: (command: Command) => Command, plan: (options: O) => AdminCall) =>
    define(connectionOptions(parent.command(name).description(description))).action(adminAction(plan));
  const list = <O extends ListOptions>(parent: Command, description: string, define: (command: Command) => Command, plan: (options: O) => AdminCall) =>
    command(
      parent,
      'list',
      description,
      (c) => define(c).addOption(limitOption()).option('--cursor <c>', 'the page after this cursor').option('--all', 'every row, following nextCursor'),
      plan,
    );

  const orgs = group('orgs', 'organizations');
  command(
    orgs,
    'create',
    'make an organization',
    (c) => c.requiredOption('--name <name>').requiredOption('--slug <slug>'),
    (o: { name: string; slug: string }) =>
      ({ client, signal }) =>
        client.createOrg({ name: o.name, slug: o.slug }, { signal }),
  );
  list(
    orgs,
    'every organization',
    (c) => c,
    (o) =>
      ({ client, signal }) =>
        listing(o, (page) => client.listOrgs(page, { signal })),
  );

  const users = group('users', 'users');
  command(
    users,
    'create',
    'make a user',
    (c) => c.requiredOption('--name <name>').option('--email <email>').option('--avatar-url <url>'),
    (o: { name: string; email?: string; avatarUrl?: string }) =>
      ({ client, signal }) =>
        client.createUser({ name: o.name, email: o.email, avatarUrl: o.avatarUrl }, { signal }),
  );
  list(
    users,
    'every user',
    (c) => c,
    (o) =>
      ({ client, signal }) =>
        listing(o, (page) => client.listUsers(page, { signal })),
  );
  // Single sign-on finds a person by their verified email: how an existing user gets one.
  command(
    users,
    'set-email',
    "set a user's email",
    (c) => c.requiredOption('--user <userId>').requiredOption('--email <email>'),
    (o: { user: string; email: string }) =>
      ({ client, signal }) =>
        client.setUserEmail(o.user, o.email, { signal }),
  );

  const members = group('members', "organizations' members");
  command(
    members,
    'add',
    'add a member, or change their role',
    (c) => c.requiredOption('--org <orgId>').requiredOption('--user <userId>').addOption(roleOption().makeOptionMandatory()),
    (o: { org: string; user: string; role: Role }) =>
      ({ client, signal }) =>
        client.addMember(o.org, { userId: o.user, role: o.role }, { signal }),
  );
  list(
    members,
    "an organization's members",
    (c) => c.requiredOption('--org <orgId>'),
    (o: ListOptions & { org: string }) =>
      ({ client, signal }) =>
        listing(o, (page) => client.listMembers(o.org, page, { signal })),
  );

  const projects = group('projects', 'projects');
  const rateOption = (flag: string, description: string) => new Option(`--${flag} <n>`, description).argParser(positiveNumber);
  const projectFlags = (c: Command) =>
    c
      .requiredOption('--org <orgId>')
      .requiredOption('--name <name>')
      .requiredOption('--slug <slug>')
      .option('--icon-url <url>')
      .addOption(rateOption('rate-per-second', 'its write limit, with --rate-burst'))
      .addOption(rateOption('rate-burst', 'its write burst, with --rate-per-second'));
  command(
    projects,
    'create',
    'make a project',
    projectFlags,
    (o: { org: string; name: string; slug: string; iconUrl?: string; ratePerSecond?: number; rateBurst?: number }) => {
      if ((o.ratePerSecond === undefined) !== (o.rateBurst === undefined))
        throw new CliError('--rate-per-second and --rate-burst go together', { exitCode: EXIT.usage, code: 'usage' });
      const writeRateLimit = o.ratePerSecond === undefined || o.rateBurst === undefined ? undefined : { perSecond: o.ratePerSecond, burst: o.rateBurst };
      return ({ client, signal }) => client.createProject(o.org, { name: o.name, slug: o.slug, iconUrl: o.iconUrl, writeRateLimit }, { signal });
    },
  );
  list(
    projects,
    "an organization's projects",
    (c) => c.requiredOption('--org <orgId>'),
    (o: ListOptions & { org: string }) =>
      ({ client, signal }) =>
        listing(o, (page) => client.listProjects(o.org, page, { signal })),
  );

  // Deleting hides the project and refuses its keys; it is purged after the server's undo window.
  command(
    projects,
    'delete',
    'delete a project: its keys stop working, and it is purged with its files after the undo window',
    (c) => c.addOption(projectOption()),
    (o: { project: ProjectRef }) => async (session) => session.client.deleteProject(await projectId(session, o.project), { signal: session.signal }),
  );
  command(
    projects,
    'undelete',
    'bring a deleted project back, until its purge begins',
    (c) => c.addOption(projectOption()),
    (o: { project: ProjectRef }) => async (session) => session.client.undeleteProject(await projectId(session, o.project), { signal: session.signal }),
  );

  const keys = group('keys', 'project keys');
  command(
    keys,
    'create',
    'make a project key for a member (printed once)',
    (c) => c.addOption(projectOption()).requiredOption('--user <userId>'),
    (o: { project: ProjectRef; user: string }) => async (session) =>
      session.client.createKey(await projectId(session, o.project), o.user, { signal: session.signal }),
  );
  list(
    keys,
    "a project's keys",
    (c) => c.addOption(projectOption()),
    (o: ListOptions & { project: ProjectRef }) => async (session) => {
      const id = await projectId(session, o.project);
      return listing(o, (page) => session.client.listKeys(id, page, { signal: session.signal }));
    },
  );
  command(
    keys,
    'revoke',
    'revoke a key',
    (c) => c.requiredOption('--key <keyId>'),
    (o: { key: string }) =>
      ({ client, signal }) =>
        client.revokeKey(o.key, { signal }),
  );
  command(
    keys,
    'reset-device',
    'unbind a key from its device',
    (c) => c.requiredOption('--key <keyId>'),
    (o: { key: string }) =>
      ({ client, signal }) =>
        client.resetDevice(o.key, { signal }),
  );

  const quickstartFlags = (c: Command) =>
    c
      .requiredOption('--org-slug <slug>')
      .requiredOption('--project-slug <slug>')
      .requiredOption('--user-name <name>')
      .option('--email <email>')
      .option('--org-name <name>')
      .option('--project-name <name>');
  command(
    admin,
    'quickstart',
    'an organization, a project, its owner, a key and a sign-in link, reusing what exists',
    quickstartFlags,
    (o: { orgSlug: string; projectSlug: string; userName: string; email?: string; orgName?: string; projectName?: string }) => (session) =>
      quickstart(session, {
        orgSlug: o.orgSlug,
        orgName: o.orgName ?? o.orgSlug,
        projectSlug: o.projectSlug,
        projectName: o.projectName ?? o.projectSlug,
        userName: o.userName,
        email: o.email,
      }),
  );
  command(
    admin,
    'sign-in-link',
    'a one-time dashboard sign-in link for a user',
    (c) => c.requiredOption('--user <name|userId>'),
    (o: { user: string }) => (session) => signInLink(session, o.user),
  );
  const inviteFlags = (c: Command) => c.addOption(projectOption()).requiredOption('--user <name|userId>').option('--email <email>').addOption(roleOption());
  command(
    admin,
    'invite',
    "a user's membership, a key and a sign-in link, making the user if needed",
    inviteFlags,
    (o: { project: ProjectRef; user: string; email?: string; role?: Role }) => (session) =>
      invite(session, { project: o.project, user: o.user, role: o.role, email: o.email }),
  );
}

const limitOption = () => new Option('--limit <n>', `rows per page (1 to ${MAX_PAGE})`).argParser(wholeNumber(1, MAX_PAGE));

/** --url and --token, on every admin command: the old command line took them anywhere. */
function connectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--url <url>', 'gateway base URL (default: $LODE_URL, else http://localhost:$PORT, PORT defaulting to 8080)').argParser(serverUrl))
    .option('--token <token>', 'admin token (default: $LODE_ADMIN_TOKEN, else <$LODE_DATA_DIR or ./.lode>/admin-token)');
}

/** Runs a command: its options checked, then the token and URL found, the call made and its answer printed. */
function adminAction<O>(plan: (options: O) => AdminCall): (options: unknown, command: Command) => Promise<void> {
  return async (_options, command) => {
    const options = command.optsWithGlobals<O & AdminOptions>();
    const out = new Output(Boolean(options.json));
    let url: string | undefined;
    let token: AdminToken | undefined;
    try {
      const call = plan(options);
      token = await adminToken(options.token);
      url = gatewayUrl(options.url);
      const client = new LodeAdminClient({ url, token: token.value, onRetry: retryNotes(out, options.verbose) });
      const answer = await call({ client, note: (line) => out.note(line), signal: interruption });
      out.result(answer, () => [JSON.stringify(answer, null, 2)]);
    } catch (error) {
      // Told as commander tells a bad option: the message, then the usage; exit 2.
      if (error instanceof CliError && error.exitCode === EXIT.usage) command.error(`error: ${error.message}`, { exitCode: EXIT.usage, code: 'lode.usage' });
      const failure = adminFailure(error, url, token);
      if (out.json) out.failure(failure.error);
      else process.stderr.write(failure.lines.map((line) => `${line}\n`).join(''));
      process.exitCode = failure.error.exitCode;
    }
  };
}

/**
 * A failure as the admin CLI tells it: `error <status> <code>: <message>` when the API refused
 * (a refused token followed by where it came from), `error: <message>` otherwise. Anything else is
 * a bug, thrown with its stack.
 */
function adminFailure(error: unknown, url: string | undefined, token: AdminToken | undefined): { lines: string[]; error: CliError } {
  const plain = (failure: CliError) => ({ lines: [`error: ${failure.message}`], error: failure });
  if (interruption.aborted) return plain(new CliError('Interrupted (Ctrl-C)', { code: 'interrupted' }));
  if (error instanceof LodeApiError) {
    const hint = error.status === 401 && token ? tokenHint(token) : undefined;
    const failure = new CliError(error.message, { code: error.code, details: { ...error.body, status: error.status, requestId: error.requestId, hint } });
    return { lines: [`error ${error.status} ${error.code}: ${error.message}`, ...(hint ? [hint] : [])], error: failure };
  }
  if (error instanceof CliError) return plain(error);
  // After the SDK's retries: no connection, or no such host.
  if (error instanceof LodeNetworkError) return plain(new CliError(`cannot reach ${url}: ${error.message}`, { code: 'network_error' }));
  throw error;
}

/** The flags every admin command takes, listed once under the usage rather than on each line. */
const EVERY_COMMAND = new Set(['url', 'token', 'json', 'verbose']);

/** Every admin command with its flags, read from the commands themselves, and what they share. */
function usage(admin: Command): string {
  const leaves = (command: Command): Command[] => command.commands.flatMap((sub) => (sub.commands.length > 0 ? leaves(sub) : [sub]));
  const line = (command: Command) => {
    const names: string[] = [];
    for (let c: Command | null = command; c && c !== admin; c = c.parent) names.unshift(c.name());
    const flags = command.options.filter((o) => !EVERY_COMMAND.has(o.attributeName())).map((o) => (o.mandatory ? o.flags : `[${o.flags}]`));
    return `  ${[...names, ...flags].join(' ')}`;
  };
  const shared = admin.options.filter((o) => EVERY_COMMAND.has(o.attributeName()));
  const width = Math.max(...shared.map((o) => o.flags.length));
  return `Usage: npm run admin -- <command> [flags]   (the same as: lode admin <command> [flags])

Commands:
${leaves(admin).map(line).join('\n')}
  help

Flags for every command:
${shared.map((o) => `  ${o.flags.padEnd(width)}  ${o.description}`).join('\n')}

List commands print one page {data, nextCursor}; --all follows nextCursor and prints every row.
quickstart and invite reuse what exists (an org or project by slug, a user by name), always make
a new key and a dashboard sign-in link; run twice, they say on stderr what they found.
Output is the JSON response; an HTTP error prints "error <status> <code>: <message>" and exits 1.
`;
}
