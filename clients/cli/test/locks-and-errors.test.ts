import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser } from './cli-runner.ts';
import { emptyDir, expectOk, newWorkspace, writeRandomFiles } from './workspace-fixtures.ts';

/** Each step starts a CLI process, seconds apiece on a loaded machine. */
const TIMEOUT = 240_000;

/** More files than one lock call takes (1,000), so the CLI needs two. */
const MANY = 1005;

describe.each(['local', 'nats'] as const)('lode lock and unlock beyond one call (%s bus)', (bus) => {
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
});

