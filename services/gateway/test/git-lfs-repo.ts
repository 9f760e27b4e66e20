import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

/** The stock client under test: Debian's package, as a team installs it. CI installs it too. */
export const GIT_LFS = '/usr/bin/git-lfs';

/** Fails, never skips, where the client is missing: the tests are about this very program. */
export function requireGitLfs(): void {
  if (!existsSync(GIT_LFS)) {
    throw new Error(`${GIT_LFS} is missing: these tests drive the real git-lfs client (install the git-lfs package)`);
  }
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * How git-lfs authenticates to Lode: HTTP Basic from git's credential store (the device id as the
 * user name, the key as the password), a Bearer key and device id as extra headers, or nothing.
 */
export type LfsAuth = { kind: 'basic'; deviceId: string; key: string } | { kind: 'bearer'; deviceId: string; key: string } | { kind: 'none' };

export interface RepoOptions {
  /** `<baseUrl>/lfs/<projectId>`: what `lfs.url` is set to. */
  lfsUrl: string;
  auth: LfsAuth;
  /** A folder of its own for HOME, so that no user's or machine's git configuration is read. */
  home: string;
}

/**
 * The only variables git and git-lfs see: nothing inherited from whoever runs the tests (no askpass
 * program, no global or system config, no GIT_DIR), prompts off so that a missing credential fails
 * instead of waiting, and messages in English for the assertions that read them.
 */
function cleanEnvironment(home: string, extra: Record<string, string>): Record<string, string> {
  return {
    PATH: '/usr/bin:/bin:/usr/local/bin',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    LANG: 'C',
    LC_ALL: 'C',
    TMPDIR: path.join(home, 'tmp'),
    ...extra,
  };
}

/** Runs a program to its end, collecting what it printed; never throws for an exit code. */
export async function run(cwd: string, command: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  return { code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
}

/** Throws with everything the command printed when it failed, so that a failed step says why. */
export function expectOk(result: RunResult, what: string): RunResult {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  return result;
}

/** A bare repository to push to and clone from, as a team's git server would hold. */
export async function initBare(dir: string, home: string): Promise<string> {
  await prepareHome(home);
  await mkdir(dir, { recursive: true });
  expectOk(await run(dir, 'git', ['init', '--bare', '-q', '-b', 'main'], cleanEnvironment(home, {})), 'git init --bare');
  return dir;
}

async function prepareHome(home: string): Promise<void> {
  await mkdir(path.join(home, 'tmp'), { recursive: true });
}

/** The hex SHA-256 of a file, read as a stream. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * A git working copy with git-lfs installed in it alone (`git lfs install --local`), `lfs.url`
 * pointing at Lode, a committer, and the configured way of authenticating.
 */
export class GitLfsRepo {
  readonly dir: string;
  readonly options: RepoOptions;

  private constructor(dir: string, options: RepoOptions) {
    this.dir = dir;
    this.options = options;
  }

  /** A new repository with `origin` set to a bare repository. */
  static async init(dir: string, origin: string, options: RepoOptions): Promise<GitLfsRepo> {
    await prepareHome(options.home);
    await mkdir(dir, { recursive: true });
    const repo = new GitLfsRepo(dir, options);
    await repo.ok(['init', '-q', '-b', 'main']);
    await repo.ok(['remote', 'add', 'origin', origin]);
    await repo.#configure();
    return repo;
  }

  /**
   * A clone that checks out pointer files only (GIT_LFS_SKIP_SMUDGE): the content comes with a
   * later `git lfs pull`, once the clone knows where Lode is and how to authenticate.
   */
  static async clone(origin: string, dir: string, options: RepoOptions): Promise<GitLfsRepo> {
    await prepareHome(options.home);
    await mkdir(path.dirname(dir), { recursive: true });
    const cloned = await run(path.dirname(dir), 'git', ['clone', '-q', origin, dir], cleanEnvironment(options.home, { GIT_LFS_SKIP_SMUDGE: '1' }));
    expectOk(cloned, `git clone ${origin}`);
    const repo = new GitLfsRepo(dir, options);
    await repo.#configure();
    return repo;
  }

  async #configure(): Promise<void> {
    const { lfsUrl, auth } = this.options;
    await this.ok(['lfs', 'install', '--local']);
    await this.ok(['config', 'user.name', 'Lode Test']);
    await this.ok(['config', 'user.email', 'test@lode.invalid']);
    await this.ok(['config', 'lfs.url', lfsUrl]);
    // A team that locks files turns verification on: a push touching a file someone else locked
    // then stops instead of warning.
    await this.ok(['config', `lfs.${lfsUrl}.locksverify`, 'true']);
    if (auth.kind === 'basic') {
      const url = new URL(lfsUrl);
      const file = path.join(this.dir, '.git', 'lode-credentials');
      await writeFile(file, `${url.protocol}//${encodeURIComponent(auth.deviceId)}:${encodeURIComponent(auth.key)}@${url.host}\n`, { mode: 0o600 });
      await this.ok(['config', 'credential.helper', `store --file=${file}`]);
    } else if (auth.kind === 'bearer') {
      // Scoped to the LFS API: git-lfs sends http.extraHeader with every request, and a presigned
      // storage URL carries its own authorization that another header would contradict.
      await this.ok(['config', '--add', `http.${lfsUrl}.extraHeader`, `Authorization: Bearer ${auth.key}`]);
      await this.ok(['config', '--add', `http.${lfsUrl}.extraHeader`, `X-Device-Id: ${auth.deviceId}`]);
    }
  }

  /** `git <args>` in this working copy, with extra variables (GIT_TRACE, say) on the clean set. */
  git(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
    return run(this.dir, 'git', args, cleanEnvironment(this.options.home, env));
  }

  /** `git lfs <args>`. */
  lfs(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
    return this.git(['lfs', ...args], env);
  }

  /** `git <args>`, which must succeed. */
  async ok(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
    return expectOk(await this.git(args, env), `git ${args.join(' ')}`);
  }

  path(relative: string): string {
    return path.join(this.dir, relative);
  }

  async write(relative: string, content: Buffer | string): Promise<void> {
    await mkdir(path.dirname(this.path(relative)), { recursive: true });
    await writeFile(this.path(relative), content);
  }

  /** Random bytes written a MiB at a time, so that a large file is never held whole; answers its SHA-256. */
  async writeRandom(relative: string, size: number): Promise<string> {
    await mkdir(path.dirname(this.path(relative)), { recursive: true });
    const out = createWriteStream(this.path(relative));
    const hash = createHash('sha256');
    for (let written = 0; written < size;) {
      const chunk = randomBytes(Math.min(1024 * 1024, size - written));
      hash.update(chunk);
      written += chunk.length;
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await finished(out);
    return hash.digest('hex');
  }

  sha256(relative: string): Promise<string> {
    return sha256File(this.path(relative));
  }

  /** Stages everything and commits it. */
  async commitAll(message: string): Promise<void> {
    await this.ok(['add', '-A']);
    await this.ok(['commit', '-q', '-m', message]);
  }
}
