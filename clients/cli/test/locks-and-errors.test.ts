import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it(`locks and unlocks ${MANY} files as one call would: merged answers, exit 3 for the one a teammate holds`, async () => {
    const owner = await stack.seed.project();
    const [ada, bo] = [await CliUser.create(stack.baseUrl, owner), await CliUser.create(stack.baseUrl, await stack.seed.member(owner.orgId, owner.projectId, 'member'))];
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

    const unlocked = await ada.run(a, ['unlock', ...paths]);
    expect(unlocked.code, unlocked.stderr).toBe(3);
    const lines = unlocked.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('unlocked '))).toHaveLength(MANY - 1);
    expect(lines.filter((l) => !l.startsWith('unlocked '))).toEqual([expect.stringMatching(`^not unlocked: ${held} is locked by `)]);
    expect(expectOk(await ada.run(a, ['locks', '--json'])).json.data).toHaveLength(1);
  }, TIMEOUT);

  it('tells a CI job that sets LODE_KEY without LODE_DEVICE, in a fresh container, to set LODE_DEVICE; with it set, the key works', async () => {
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
  }, TIMEOUT);
});

/** The device id the CLI generated and kept in the user's config dir. */
async function savedDeviceId(user: CliUser): Promise<string> {
  const config = JSON.parse(await readFile(path.join(user.env.XDG_CONFIG_HOME!, 'lode', 'config.json'), 'utf8')) as { deviceId: string };
  return config.deviceId;
}
