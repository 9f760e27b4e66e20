import http from 'node:http';
import { mkdtemp, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser } from './cli-runner.ts';
import { emptyDir, expectOk, newWorkspace, writeRandomFiles } from './workspace-fixtures.ts';

/** Each step starts a CLI process, seconds apiece on a loaded machine. */
const TIMEOUT = 240_000;

/** More files than one lock call takes (1,000), so the CLI needs two. */
const MANY = 1005;

describe.each(['local', 'nats'] as const)('lode lock and unlock beyond one call, and a key bound elsewhere (%s bus)', (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  it(
    `locks and unlocks ${MANY} files as one call would: merged answers, exit 3 for the one a teammate holds`,
    async () => {
      const owner = await stack.seed.project();
      const [ada, bo] = [
        await CliUser.create(stack.baseUrl, owner),
        await CliUser.create(stack.baseUrl, await stack.seed.member(owner.orgId, owner.projectId, 'member')),
      ];
      const a = await newWorkspace(ada);
      const paths = await writeRandomFiles(a, 'Textures', MANY, 16);
      expectOk(await ada.run(a, ['push', '-m', 'many']));
      const held = paths[MANY - 1];
      expectOk(await bo.run(await emptyDir(), ['lock', held]));

      const locked = await ada.run(a, ['lock', ...paths, '--note', 'bake', '--json']);
      expect(locked.code, locked.stderr).toBe(3);
      expect(locked.json.acquired.map((l: { path: string }) => l.path)).toEqual(paths.slice(0, -1));
      expect(locked.json.conflicts).toEqual([expect.objectContaining({ reason: 'locked', path: held, isMine: false })]);
      expect(locked.json.notFound).toEqual([]);
      const listed = expectOk(await ada.run(a, ['locks', '--json'])).json.data as { isMine: boolean }[];
      expect(listed.filter((l) => l.isMine)).toHaveLength(MANY - 1);

      // Outside a workspace the paths are looked up on the branch, more than one lookup call takes too.
      const unlocked = await ada.run(await emptyDir(), ['unlock', ...paths]);
      expect(unlocked.code, unlocked.stderr).toBe(3);
      const lines = unlocked.stdout.trimEnd().split('\n');
      expect(lines.filter((l) => l.startsWith('unlocked '))).toHaveLength(MANY - 1);
      expect(lines.filter((l) => !l.startsWith('unlocked '))).toEqual([expect.stringMatching(`^not unlocked: ${held} is locked by `)]);
      expect(expectOk(await ada.run(a, ['locks', '--json'])).json.data).toHaveLength(1);
    },
    TIMEOUT,
  );

  it(
    'unlocks, by its path, a lock a Git LFS user took on a path nothing was pushed to yet',
    async () => {
      const owner = await stack.seed.project();
      const member = await stack.seed.member(owner.orgId, owner.projectId, 'member');
      const gitUser = `Basic ${Buffer.from(`${member.deviceId}:${member.key}`).toString('base64')}`;
      const taken = await fetch(`${stack.baseUrl}/lfs/${owner.projectId}/locks`, {
        method: 'POST',
        headers: { authorization: gitUser, 'content-type': 'application/vnd.git-lfs+json' },
        body: JSON.stringify({ path: 'Art/Unpushed.psd' }),
      });
      expect(taken.status).toBe(201);
      const ada = await CliUser.create(stack.baseUrl, owner);
      const listed = expectOk(await ada.run(await emptyDir(), ['locks', '--json'])).json.data;
      expect(listed).toEqual([expect.objectContaining({ path: 'Art/Unpushed.psd', isMine: false })]);
      expectOk(await ada.run(await emptyDir(), ['unlock', 'art/unpushed.psd', '--force']));
      expect(expectOk(await ada.run(await emptyDir(), ['locks', '--json'])).json.data).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'tells a CI job that sets LODE_KEY without LODE_DEVICE, in a fresh container, to set LODE_DEVICE; with it set, the key works',
    async () => {
      const project = await stack.seed.project();
      /** A CI run: a config dir of its own (a fresh container), no LODE_DEVICE. */
      const ciRun = async () => {
        const user = await CliUser.create(stack.baseUrl, project);
        delete user.env.LODE_DEVICE;
        return { user, result: await user.run(await emptyDir(), ['locks', '--json']) };
      };
      const first = await ciRun();
      expectOk(first.result);
      const second = await ciRun();
      expect(second.result.code).toBe(1);
      expect(second.result.json.error).toMatchObject({ code: 'device_mismatch', status: 403 });
      expect(second.result.json.error.message).toContain('Set LODE_DEVICE to that device');
      expect(second.result.json.error.message).toContain('CI jobs must set LODE_DEVICE along with LODE_KEY');

      second.user.env.LODE_DEVICE = await savedDeviceId(first.user);
      expectOk(await second.user.run(await emptyDir(), ['locks']));
    },
    TIMEOUT,
  );
});

/** The device id the CLI generated and kept in the user's config dir. */
async function savedDeviceId(user: CliUser): Promise<string> {
  const config = JSON.parse(await readFile(path.join(user.env.XDG_CONFIG_HOME!, 'lode', 'config.json'), 'utf8')) as { deviceId: string };
  return config.deviceId;
}

describe('lode against a URL where another web server answers', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    // Python's http.server: a whole HTML page, 501 for a POST it does not support; 404 for the rest.
    server = http.createServer((req, res) => {
      const status = req.method === 'POST' ? 501 : 404;
      res
        .writeHead(status, { 'content-type': 'text/html;charset=utf-8' })
        .end(`<!DOCTYPE HTML>\n<html><head><title>Error response</title></head><body><h1>Error response</h1><p>Error code: ${status}</p></body></html>\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const user = async () => {
    const project = { key: `lode_${'a'.repeat(40)}`, deviceId: 'laptop' } as SeededProject;
    return new CliUser(url, project, await mkdtemp(path.join(tmpdir(), 'lode-cli-config-')));
  };

  it(
    'says no Lode API answers there, naming the URL and the status, never printing the page',
    async () => {
      const login = await (await user()).run(await emptyDir(), ['login', '--url', url, '--key', `lode_${'a'.repeat(40)}`]);
      expect(login.code).toBe(1);
      expect(login.stderr).toBe(
        `error: No Lode API answers at ${url} (it answered HTTP 501 text/html, not as Lode does). Check the URL: give the server's base URL, the address of its dashboard (e.g. https://lode.example.com).\n`,
      );

      const locks = await (await user()).run(await emptyDir(), ['locks', '--json']);
      expect(locks.code).toBe(1);
      expect(locks.json.error).toMatchObject({
        code: 'not_a_lode_server',
        status: 501,
        url,
        message: expect.stringContaining(`No Lode API answers at ${url}`),
      });
      expect(locks.stdout).not.toMatch(/DOCTYPE|Error response/);
    },
    TIMEOUT,
  );
});
