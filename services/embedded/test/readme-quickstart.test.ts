import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT, waitForReady } from '@lode/testkit';

/**
 * The README's quick start, followed line by line as a newcomer does: every command of the fenced
 * `sh` blocks of its "Quick start" section, in order, then the `lode login` line the CLI section
 * gives next. `npm start` runs on a data directory and port of its own; the newcomer's own key, the
 * first one a step prints, is pasted where a later line shows `lode_…`, and `localhost:8080`
 * becomes that port.
 */

const START_TIMEOUT_MS = 120_000;
const COMMAND_TIMEOUT_MS = 120_000;
/** Commands the test does not run: the checkout is installed already, and `npm test` is this suite. */
const NOT_RUN = new Set(['npm ci', 'npm test']);
const KEY_PLACEHOLDER = 'lode_…';

/** The body of each fenced `sh` block of the README section `heading`, in order. */
function shBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
}

/** A block's commands: one per line and per `&&`, comments dropped. */
function commandsOf(block: string): string[] {
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .flatMap((line) => line.split(/\s+&&\s+/));
}

describe('the README quick start', () => {
  let dataDir: string;
  let configHome: string;
  let server: ChildProcess | undefined;
  let serverExited: Promise<unknown> = Promise.resolve();

  afterAll(async () => {
    server?.kill('SIGTERM');
    await serverExited;
    for (const folder of [dataDir, configHome]) if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('works when followed line by line, through the lode login it suggests next', { timeout: 10 * COMMAND_TIMEOUT_MS }, async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const quickStart = shBlocks(readme, 'Quick start').flatMap(commandsOf);
    const login = shBlocks(readme, 'CLI')
      .flatMap(commandsOf)
      .find((command) => /\blode login\b/.test(command));
    expect(quickStart).toContain('npm start');
    expect(login).toBeDefined();

    dataDir = await mkdtemp(path.join(tmpdir(), 'lode-readme-'));
    configHome = await mkdtemp(path.join(tmpdir(), 'lode-readme-config-'));
    const port = await freePort();
    // LODE_OPS_PORT is left unset, as a newcomer leaves it; the CLI's settings go to a home of the test's own.
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), LODE_DATA_DIR: dataDir, XDG_CONFIG_HOME: configHome, LOG_LEVEL: 'warn' };
    delete env.LODE_OPS_PORT;
    delete env.LODE_URL;
    delete env.LODE_ADMIN_TOKEN;
    delete env.LODE_KEY;

    let key: string | undefined;
    const asTyped = (command: string) => {
      if (command.includes(KEY_PLACEHOLDER) && !key) throw new Error(`no step printed a key before: ${command}`);
      return command.replaceAll('localhost:8080', `localhost:${port}`).replaceAll(KEY_PLACEHOLDER, key ?? KEY_PLACEHOLDER);
    };

    for (const command of [...quickStart, login ?? '']) {
      if (NOT_RUN.has(command)) continue;
      if (command === 'npm start') {
        const npm = spawn('npm', ['start'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        server = npm;
        serverExited = new Promise((resolve) => npm.once('exit', resolve));
        await Promise.race([
          waitForReady(`http://127.0.0.1:${port}`, START_TIMEOUT_MS),
          serverExited.then(() => Promise.reject(new Error(`npm start exited:\n${output}`))),
        ]);
        continue;
      }
      const { stdout, stderr } = await promisify(execFile)('sh', ['-c', asTyped(command)], { cwd: REPO_ROOT, env, timeout: COMMAND_TIMEOUT_MS }).catch(
        (error: { stdout?: string; stderr?: string; message: string }) => {
          throw new Error(`"${command}" failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
        },
      );
      // A step that answers JSON must not answer an error (curl exits 0 on a 403).
      const answer = parseJson(stdout);
      expect(answer?.code, `"${command}" answered ${stdout}\n${stderr}`).toBeUndefined();
      expect(answer?.valid, `"${command}" answered ${stdout}`).not.toBe(false);
      // The first key printed is the newcomer's own (quickstart's); later ones (invite's) are for teammates.
      if (typeof answer?.key === 'string') key ??= answer.key;
    }
    expect(key).toMatch(/^lode_/);
  });
});

/** The JSON object a step printed, after whatever npm printed before it. */
function parseJson(text: string): Record<string, unknown> | undefined {
  const start = text.search(/^\{/m);
  if (start < 0) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start));
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
