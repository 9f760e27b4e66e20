import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, freePort } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
// The repo's own Node 24 (type stripping), whatever node runs vitest: the one `npm run` puts first on PATH.
const NODE = path.join(repoRoot, 'node_modules/.bin/node');
// What `npm run admin` runs (`node <entry> admin`), read from package.json so that the script itself is tested.
const script = (JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: { admin: string } }).scripts.admin.split(' ');
const ADMIN = [path.join(repoRoot, script[1]), ...script.slice(2)];

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}
interface Page<T> {
  data: T[];
  nextCursor: string | null;
}
interface Granted {
  orgId: string;
  projectId: string;
  userId: string;
  role: string;
  keyId: string;
  key: string;
}

const tag = () => randomBytes(4).toString('hex');

function run(file: string, args: string[], cwd: string, env: Record<string, string>): Promise<CliResult> {
  const { LODE_URL: _u, LODE_ADMIN_TOKEN: _t, LODE_DATA_DIR: _d, PORT: _p, ...inherited } = process.env;
  return new Promise<CliResult>((resolve, reject) => {
    execFile(file, args, { cwd, env: { ...inherited, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(new Error(`could not run ${file}: ${error.message}`, { cause: error }));
      else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

describe('lode admin (npm run admin)', () => {
  let stack: TestStack;
  let workDir: string;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
    workDir = await mkdtemp(path.join(tmpdir(), 'lode-cli-'));
  });
  afterAll(async () => {
    await stack?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  /** Runs the CLI in an empty directory with only the environment given, so nothing of this machine's leaks in. */
  function cli(args: string[], env: Record<string, string> = { LODE_URL: stack.baseUrl, LODE_ADMIN_TOKEN: stack.adminToken }) {
    return run(NODE, [...ADMIN, ...args], workDir, env);
  }
  /** A successful run's stdout, parsed: the CLI prints exactly the JSON answer there. */
  async function json<T>(args: string[]): Promise<T> {
    const run = await cli(args);
    expect(run, run.stderr).toMatchObject({ code: 0 });
    return JSON.parse(run.stdout) as T;
  }

  it('quickstart creates org, project, owner and key, and the key works', async () => {
    const run = await cli(['quickstart', '--org-slug', `studio-${tag()}`, '--project-slug', 'forest', '--user-name', 'Ada']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('shown only once');
    const created = JSON.parse(run.stdout) as Granted;
    expect(created).toEqual({
      orgId: expect.any(String),
      projectId: expect.any(String),
      userId: expect.any(String),
      role: 'owner',
      keyId: expect.any(String),
      key: expect.stringMatching(/^lode_[0-9A-Za-z]{40}$/),
      signInUrl: expect.stringMatching(/\/sign-in#token=[\w-]{43}$/),
    });
    expect(run.stderr).toContain('Sign in to the dashboard: open http');
    const api = new ApiClient(stack.baseUrl, { authorization: `Bearer ${created.key}` });
    const identity = await api.post('/api/v1/auth/validate-key');
    expect(identity).toMatchObject({ status: 200, body: { userName: 'Ada', projectSlug: 'forest', orgId: created.orgId } });

    const keys = await json<Page<{ id: string; userId: string }>>(['keys', 'list', '--project', created.projectId]);
    expect(keys).toMatchObject({ data: [{ id: created.keyId, userId: created.userId }], nextCursor: null });
    expect(JSON.stringify(keys)).not.toContain(created.key);
    const members = await json<Page<{ userId: string; role: string }>>(['members', 'list', '--org', created.orgId]);
    expect(members.data).toEqual([expect.objectContaining({ userId: created.userId, role: 'owner' })]);
  });

  it('sign-in-link prints a one-time dashboard link for a user named once, and refuses unknown or ambiguous names', async () => {
    const name = `Link-${tag()}`;
    const user = await json<{ id: string }>(['users', 'create', '--name', name]);
    for (const ref of [name, user.id]) {
      const link = await json<{ url: string; expiresAt: string }>(['sign-in-link', '--user', ref]);
      const token = new URL(link.url).hash.replace('#token=', '');
      expect(await new ApiClient(stack.baseUrl).post('/api/v1/session', { token })).toMatchObject({ status: 201, body: { user: { id: user.id } } });
    }
    expect(await cli(['sign-in-link', '--user', `nobody-${tag()}`])).toMatchObject({ code: 1, stderr: expect.stringContaining('No user is named') });
    await json(['users', 'create', '--name', name]);
    expect(await cli(['sign-in-link', '--user', name])).toMatchObject({ code: 1, stderr: expect.stringContaining('2 users are named') });
  });

  /** The key works: validate-key answers 200 for the user and project it was made for. */
  async function expectWorkingKey(granted: Granted, userName: string) {
    const api = new ApiClient(stack.baseUrl, { authorization: `Bearer ${granted.key}` });
    expect(await api.post('/api/v1/auth/validate-key')).toMatchObject({
      status: 200,
      body: { userId: granted.userId, userName, projectId: granted.projectId },
    });
  }

  it('quickstart run again reuses what exists, says so, and prints a new working key', async () => {
    const args = ['quickstart', '--org-slug', `again-${tag()}`, '--project-slug', 'forest', '--user-name', `Ada-${tag()}`];
    const first = await cli(args);
    expect(first.code, first.stderr).toBe(0);
    const second = await cli(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/Organization "again-[0-9a-f]+" exists \(.+\): using it/);
    expect(second.stderr).toMatch(/Project "again-[0-9a-f]+\/forest" exists/);
    expect(second.stderr).toMatch(/User "Ada-[0-9a-f]+" exists/);
    expect(second.stderr).toContain('Already a member of the organization as owner');
    const [a, b] = [JSON.parse(first.stdout) as Granted, JSON.parse(second.stdout) as Granted];
    expect(b).toMatchObject({ orgId: a.orgId, projectId: a.projectId, userId: a.userId, role: 'owner' });
    expect(b.key).not.toBe(a.key);
    await expectWorkingKey(a, args[6]);
    await expectWorkingKey(b, args[6]);
    const members = await json<Page<{ userId: string }>>(['members', 'list', '--org', a.orgId]);
    expect(members.data).toHaveLength(1);
  });

  it('invite makes the user, the membership and a key in one step, by slugs or by project id, and never demotes', async () => {
    const owner = JSON.parse((await cli(['quickstart', '--org-slug', `team-${tag()}`, '--project-slug', 'swamp', '--user-name', 'Owner'])).stdout) as Granted;
    const orgSlug = (await json<Page<{ id: string; slug: string }>>(['orgs', 'list', '--all'])).data.find((o) => o.id === owner.orgId)?.slug;
    const name = `Bea-${tag()}`;

    const invited = await cli(['invite', '--project', `${orgSlug}/swamp`, '--user', name]);
    expect(invited.code, invited.stderr).toBe(0);
    expect(invited.stderr).toContain(`User "${name}" created`);
    expect(invited.stderr).toContain('Added to the organization as member');
    const bea = JSON.parse(invited.stdout) as Granted;
    expect(bea).toMatchObject({ orgId: owner.orgId, projectId: owner.projectId, role: 'member' });
    await expectWorkingKey(bea, name);

    const promoted = await cli(['invite', '--project', owner.projectId, '--user', name, '--role', 'admin']);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stderr).toContain('changed from member to admin');
    expect(JSON.parse(promoted.stdout)).toMatchObject({ userId: bea.userId, role: 'admin' });
    const again = await cli(['invite', '--project', owner.projectId, '--user', bea.userId]);
    expect(JSON.parse(again.stdout)).toMatchObject({ userId: bea.userId, role: 'admin' });
    const ownerAgain = await cli(['invite', '--project', `${orgSlug}/swamp`, '--user', 'Owner']);
    expect(JSON.parse(ownerAgain.stdout)).toMatchObject({ userId: owner.userId, role: 'owner' });

    const members = await json<Page<{ userId: string; role: string }>>(['members', 'list', '--org', owner.orgId]);
    expect(members.data.map((m) => [m.userId, m.role]).sort()).toEqual(
      [
        [owner.userId, 'owner'],
        [bea.userId, 'admin'],
      ].sort(),
    );
    const keys = await json<Page<{ userId: string }>>(['keys', 'list', '--project', owner.projectId]);
    expect(keys.data).toHaveLength(5);
  });

  it('invite prints a dashboard sign-in link as quickstart does; --email gives the user made, or found, an email', async () => {
    const name = `Cy-${tag()}`;
    const email = `${name.toLowerCase()}@studio.example`;
    const owner = JSON.parse(
      (await cli(['quickstart', '--org-slug', `mail-${tag()}`, '--project-slug', 'moor', '--user-name', name, '--email', email])).stdout,
    ) as Granted;
    const users = async () => (await json<Page<{ id: string; email: string | null }>>(['users', 'list', '--all'])).data;
    expect((await users()).find((u) => u.id === owner.userId)?.email).toBe(email);

    const invitee = `Di-${tag()}`;
    const invited = await cli(['invite', '--project', owner.projectId, '--user', invitee, '--email', `${invitee.toLowerCase()}@studio.example`]);
    expect(invited.code, invited.stderr).toBe(0);
    const di = JSON.parse(invited.stdout) as Granted & { signInUrl: string };
    expect(di.signInUrl).toMatch(/\/sign-in#token=[\w-]{43}$/);
    expect(invited.stderr).toContain(`Sign in to the dashboard: open ${di.signInUrl}`);
    expect((await users()).find((u) => u.id === di.userId)?.email).toBe(`${invitee.toLowerCase()}@studio.example`);

    // A user found without an email gets the one given.
    const plain = JSON.parse((await cli(['invite', '--project', owner.projectId, '--user', `Ed-${tag()}`])).stdout) as Granted;
    expect((await users()).find((u) => u.id === plain.userId)?.email).toBeNull();
    const withEmail = await cli(['invite', '--project', owner.projectId, '--user', plain.userId, '--email', 'ed@studio.example']);
    expect(withEmail.code, withEmail.stderr).toBe(0);
    expect(withEmail.stderr).toContain('set to ed@studio.example');
    expect((await users()).find((u) => u.id === plain.userId)?.email).toBe('ed@studio.example');
  });

  it('invite refuses a name several users share, and a project that does not exist', async () => {
    const project = JSON.parse((await cli(['quickstart', '--org-slug', `dup-${tag()}`, '--project-slug', 'p', '--user-name', 'Owner'])).stdout) as Granted;
    const name = `Twin-${tag()}`;
    await json(['users', 'create', '--name', name]);
    await json(['users', 'create', '--name', name]);
    const twins = await cli(['invite', '--project', project.projectId, '--user', name]);
    expect(twins).toMatchObject({ code: 1, stdout: '' });
    expect(twins.stderr).toMatch(new RegExp(`^error: 2 users are named "${name}" \\(.+\\): pass --user <userId>\n$`));

    const noOrg = await cli(['invite', '--project', `nowhere-${tag()}/p`, '--user', name]);
    expect(noOrg).toMatchObject({ code: 1, stdout: '' });
    expect(noOrg.stderr).toMatch(/^error: No organization has the slug "nowhere-[0-9a-f]+"/);
    const noProject = await cli(['invite', '--project', '00000000-0000-4000-8000-000000000000', '--user', name]);
    expect(noProject).toEqual({ code: 1, stdout: '', stderr: 'error: No project has the id 00000000-0000-4000-8000-000000000000\n' });
  });

  it('orgs list --all follows nextCursor through every page', async () => {
    for (let i = 0; i < 3; i++) await json(['orgs', 'create', '--name', 'Paged', '--slug', `paged-${tag()}`]);
    const whole = await new ApiClient(stack.baseUrl, { authorization: `Bearer ${stack.adminToken}` }).get<Page<{ id: string }>>('/admin/v1/orgs?limit=200');
    const onePage = await json<Page<{ id: string }>>(['orgs', 'list', '--limit', '1']);
    expect(onePage.data).toHaveLength(1);
    expect(onePage.nextCursor).toEqual(expect.any(String));
    for (const args of [['--all'], ['--all', '--limit', '1']]) {
      const all = await json<Page<{ id: string }>>(['orgs', 'list', ...args]);
      expect(all.nextCursor).toBeNull();
      expect(all.data.map((o) => o.id)).toEqual(whole.body.data.map((o) => o.id));
    }
  });

  it('runs every resource command against the admin API', async () => {
    const org = await json<{ id: string; slug: string }>(['orgs', 'create', '--name', 'Acme', '--slug', `acme-${tag()}`]);
    const email = `bo-${tag()}@studio.example`;
    const user = await json<{ id: string; avatarUrl: string; email: string }>([
      'users',
      'create',
      '--name',
      'Bo',
      '--email',
      email,
      '--avatar-url',
      'https://example.com/bo.png',
    ]);
    expect(user).toMatchObject({ avatarUrl: 'https://example.com/bo.png', email });
    expect(await json(['users', 'set-email', '--user', user.id, '--email', `new-${email}`])).toMatchObject({ id: user.id, email: `new-${email}` });
    expect(await json(['members', 'add', '--org', org.id, '--user', user.id, '--role', 'admin'])).toMatchObject({ role: 'admin' });
    const project = await json<{ id: string }>([
      'projects',
      'create',
      '--org',
      org.id,
      '--name',
      'Swamp',
      '--slug',
      'swamp',
      '--icon-url',
      'https://example.com/s.png',
      '--rate-per-second',
      '2.5',
      '--rate-burst',
      '20',
    ]);
    expect(project).toMatchObject({ iconUrl: 'https://example.com/s.png', writeRateLimit: { perSecond: 2.5, burst: 20 } });
    expect((await json<Page<{ id: string }>>(['projects', 'list', '--org', org.id])).data.map((p) => p.id)).toEqual([project.id]);
    expect((await json<Page<{ id: string }>>(['users', 'list', '--all'])).data.map((u) => u.id)).toContain(user.id);

    const key = await json<{ id: string; key: string }>(['keys', 'create', '--project', project.id, '--user', user.id]);
    const api = (device: string) => new ApiClient(stack.baseUrl, { authorization: `Bearer ${key.key}`, 'x-device-id': device });
    expect((await api('laptop').post('/api/v1/auth/validate-key')).status).toBe(200);
    expect((await api('desktop').post('/api/v1/auth/validate-key')).status).toBe(403);
    expect(await json(['keys', 'reset-device', '--key', key.id])).toMatchObject({ id: key.id, deviceBound: false });
    expect((await api('desktop').post('/api/v1/auth/validate-key')).status).toBe(200);
    expect(await json(['keys', 'revoke', '--key', key.id])).toMatchObject({ id: key.id, revokedAt: expect.any(String) });
    expect((await api('desktop').post('/api/v1/auth/validate-key')).body).toMatchObject({ code: 'key_revoked' });
  });

  it('exits 1 with "error <status> <code>: <message>" on stderr when the API refuses', async () => {
    const slug = `taken-${tag()}`;
    await json(['orgs', 'create', '--name', 'First', '--slug', slug]);
    const taken = await cli(['orgs', 'create', '--name', 'Second', '--slug', slug]);
    expect(taken).toEqual({ code: 1, stdout: '', stderr: `error 409 slug_taken: Slug "${slug}" is already taken\n` });

    const wrongToken = await cli(['orgs', 'list'], { LODE_URL: stack.baseUrl, LODE_ADMIN_TOKEN: 'not-the-token' });
    expect(wrongToken).toMatchObject({ code: 1, stdout: '' });
    expect(wrongToken.stderr).toMatch(
      /^error 401 unauthorized: .+\nThe admin token came from LODE_ADMIN_TOKEN, which goes before any data dir's admin-token: .+\n$/,
    );

    const unknown = await cli(['keys', 'revoke', '--key', '00000000-0000-4000-8000-000000000000']);
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'error 404 not_found: API key not found\n' });
  });

  it('names where a refused admin token was read from and how to point elsewhere (a server started with another LODE_DATA_DIR)', async () => {
    const defaultDir = path.join(workDir, '.lode');
    const otherDir = path.join(workDir, 'other-data');
    for (const dir of [defaultDir, otherDir]) {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'admin-token'), 'another-servers-token\n');
    }
    try {
      const fromDefault = await cli(['orgs', 'list'], { LODE_URL: stack.baseUrl });
      expect(fromDefault).toMatchObject({ code: 1, stdout: '' });
      expect(fromDefault.stderr.split('\n')[1]).toBe(
        `The admin token was read from ${path.join(defaultDir, 'admin-token')} (the default data dir: LODE_DATA_DIR is not set). A server started with LODE_DATA_DIR=DIR keeps its token in DIR/admin-token: run this with the same LODE_DATA_DIR, or set LODE_ADMIN_TOKEN (or pass --token) to the server's token.`,
      );
      const fromOther = await cli(['orgs', 'list'], { LODE_URL: stack.baseUrl, LODE_DATA_DIR: otherDir });
      expect(fromOther.stderr).toContain(`The admin token was read from ${path.join(otherDir, 'admin-token')} (LODE_DATA_DIR=${otherDir}).`);
    } finally {
      await rm(defaultDir, { recursive: true, force: true });
    }
  });

  it('keys list and keys create take the project as invite does: by id or by <org-slug>/<project-slug>', async () => {
    const orgSlug = `slugs-${tag()}`;
    const granted = await json<Granted>(['quickstart', '--org-slug', orgSlug, '--project-slug', 'forest', '--user-name', 'Ada']);
    const made = await json<{ id: string }>(['keys', 'create', '--project', `${orgSlug}/forest`, '--user', granted.userId]);
    const bySlugs = await json<Page<{ id: string }>>(['keys', 'list', '--project', `${orgSlug}/forest`, '--limit', '1']);
    expect(bySlugs.data).toHaveLength(1);
    const all = await json<Page<{ id: string }>>(['keys', 'list', '--project', `${orgSlug}/forest`, '--all']);
    expect(all).toEqual(await json(['keys', 'list', '--project', granted.projectId, '--all']));
    expect(all.data.map((k) => k.id).sort()).toEqual([granted.keyId, made.id].sort());

    const noOrg = await cli(['keys', 'list', '--project', `nowhere-${tag()}/forest`]);
    expect(noOrg).toMatchObject({ code: 1, stdout: '' });
    expect(noOrg.stderr).toMatch(/^error: No organization has the slug "nowhere-[0-9a-f]+"/);
    const noProject = await cli(['keys', 'list', '--project', `${orgSlug}/swamp`]);
    expect(noProject).toMatchObject({ code: 1, stderr: expect.stringMatching(`^error: Organization "${orgSlug}" has no project "swamp"`) });
  });

  it('reports what quickstart had created when a later step fails', async () => {
    const run = await cli(['quickstart', '--org-slug', `half-${tag()}`, '--project-slug', 'Not A Slug', '--user-name', 'Cy']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error 400 validation_failed: .*slug/m);
    expect(run.stderr).toMatch(/quickstart stopped after creating \{"orgId":"[0-9a-f-]{36}"\}/);
    expect(run.stdout).toBe('');
  });

  it('takes --url and --token over the environment, then LODE_URL, then localhost:$PORT, and falls back to <LODE_DATA_DIR>/admin-token', async () => {
    const flags = await cli(['orgs', 'list', '--url', stack.baseUrl, '--token', stack.adminToken], {
      LODE_URL: 'http://127.0.0.1:1',
      LODE_ADMIN_TOKEN: 'wrong',
    });
    expect(flags.code, flags.stderr).toBe(0);

    const dataDir = path.join(workDir, 'data');
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir);
    await writeFile(path.join(dataDir, 'admin-token'), `${stack.adminToken}\n`);
    const fromFile = await cli(['orgs', 'list'], { LODE_URL: stack.baseUrl, LODE_DATA_DIR: dataDir });
    expect(fromFile.code, fromFile.stderr).toBe(0);

    const port = new URL(stack.baseUrl).port;
    const fromPort = await cli(['orgs', 'list'], { PORT: port, LODE_ADMIN_TOKEN: stack.adminToken });
    expect(fromPort.code, fromPort.stderr).toBe(0);
    const urlOverPort = await cli(['orgs', 'list'], { LODE_URL: stack.baseUrl, PORT: '1', LODE_ADMIN_TOKEN: stack.adminToken });
    expect(urlOverPort.code, urlOverPort.stderr).toBe(0);
    const badPort = await cli(['orgs', 'list'], { PORT: 'eighty', LODE_ADMIN_TOKEN: stack.adminToken });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('PORT must be a port number');

    const none = await cli(['orgs', 'list'], { LODE_URL: stack.baseUrl, LODE_DATA_DIR: path.join(workDir, 'nowhere') });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('No admin token');
    // It says plainly that the server's LODE_DATA_DIR decides where its token is.
    expect(none.stderr).toContain(`was the server started with LODE_DATA_DIR=${path.join(workDir, 'nowhere')}?`);
    const noDataDir = await cli(['orgs', 'list'], { LODE_URL: stack.baseUrl });
    expect(noDataDir.code).toBe(2);
    expect(noDataDir.stderr).toContain('LODE_DATA_DIR is not set');
    expect(noDataDir.stderr).toContain('LODE_DATA_DIR=DIR npm run admin');
  });

  it.each([
    ['no command', []],
    ['an unknown command', ['orgs', 'delete']],
    ['a missing flag', ['orgs', 'create', '--name', 'Acme']],
    ['an unknown flag', ['orgs', 'list', '--bogus']],
    ['a flag of another command', ['orgs', 'create', '--name', 'Acme', '--slug', 'acme', '--org', 'x']],
    ['an unknown role', ['members', 'add', '--org', 'o', '--user', 'u', '--role', 'boss']],
    ['half a rate limit', ['projects', 'create', '--org', 'o', '--name', 'n', '--slug', 's', '--rate-burst', '3']],
    ['a project that is neither an id nor slugs', ['invite', '--project', 'Studio Game', '--user', 'Ada']],
    ['keys list of a project that is neither an id nor slugs', ['keys', 'list', '--project', 'Studio Game']],
    ['invite without --user', ['invite', '--project', 'studio/game']],
    ['invite with an unknown role', ['invite', '--project', 'studio/game', '--user', 'Ada', '--role', 'boss']],
    ['a page size the API does not serve', ['orgs', 'list', '--limit', '0']],
    ['a gateway URL without its scheme', ['orgs', 'list', '--url', 'localhost:8080']],
  ])('exits 2 with the usage on stderr for %s', async (_, args) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: npm run admin -- <command> [flags]');
  });

  it('prints the usage on stdout for help and --help, run as `npm run admin` and as `lode admin`', async () => {
    for (const args of [['help'], ['--help'], ['orgs', 'create', '--help']]) {
      const help = await cli(args, {});
      expect(help, help.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toContain('quickstart --org-slug');
    }
    const viaNpm = await run('npm', ['run', '--silent', 'admin', '--', 'help'], repoRoot, {});
    expect(viaNpm, viaNpm.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: npm run admin -- <command> [flags]') });
    expect(script.slice(0, 3)).toEqual(['node', 'clients/cli/bin/lode.js', 'admin']);
  });

  it('with --json, tells a failure as the one JSON document on stdout, as every lode command does', async () => {
    const slug = `json-${tag()}`;
    await json(['orgs', 'create', '--name', 'First', '--slug', slug]);
    const taken = await cli(['orgs', 'create', '--name', 'Second', '--slug', slug, '--json']);
    expect(taken).toMatchObject({ code: 1, stderr: '' });
    expect(JSON.parse(taken.stdout)).toEqual({
      error: expect.objectContaining({ code: 'slug_taken', status: 409, message: `Slug "${slug}" is already taken` }),
    });
    const usage = await cli(['orgs', 'create', '--name', 'Acme', '--json']);
    expect(usage).toMatchObject({ code: 2, stderr: '' });
    expect(JSON.parse(usage.stdout)).toEqual({ error: expect.objectContaining({ code: 'usage' }) });
    const listed = await cli(['orgs', 'list', '--limit', '1', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject({ data: [{ id: expect.any(String) }] });
  });

  it('retries a list through a lost connection (--verbose says so) but sends a create once: a second one would make a second user', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const env = { LODE_URL: nowhere, LODE_ADMIN_TOKEN: stack.adminToken };
    const listed = await cli(['orgs', 'list', '--verbose'], env);
    expect(listed).toMatchObject({ code: 1, stdout: '' });
    expect(listed.stderr).toMatch(/^retrying GET \/admin\/v1\/orgs in \d+ ms \(connect ECONNREFUSED [^)]*\)$/m);
    expect(listed.stderr).toMatch(new RegExp(`^error: cannot reach ${nowhere}: connect ECONNREFUSED`, 'm'));
    const created = await cli(['users', 'create', '--name', 'Once', '--verbose'], env);
    expect(created).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(new RegExp(`^error: cannot reach ${nowhere}: connect ECONNREFUSED[^\n]*\n$`)),
    });
  });
});
