import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser } from './cli-runner.ts';
import { expectOk, expectSameTree, newWorkspace, RUN_MODES, writeRandomFiles } from './workspace-fixtures.ts';

describe.each(RUN_MODES)('the lode CLI with a large workspace (%s)', (_mode, options) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(options);
  });
  afterAll(async () => stack?.stop());

  it('pushes 2,000 files of 64 KiB and one of 200 MB, pulls them into an empty workspace byte for byte, and a second push uploads nothing', async () => {
    const project = await stack.seed.project();
    const user = await CliUser.create(stack.baseUrl, project);
    const a = await newWorkspace(user);
    await writeRandomFiles(a, 'Textures', 2000, 64 * 1024);
    await writeRandomFiles(a, 'Video', 1, 200 * 1000 * 1000);
    const pushed = expectOk(await user.run(a, ['push', '-m', 'everything', '--json']));
    expect(pushed.json).toMatchObject({ commit: { fileCount: 2001 }, uploaded: 2001 });
    const b = await newWorkspace(user);
    expect(expectOk(await user.run(b, ['pull', '--json'])).json).toMatchObject({ downloaded: 2001, conflicts: [] });
    expectSameTree(a, b);
    expect(expectOk(await user.run(a, ['push', '-m', 'again', '--json'])).json).toMatchObject({ commit: null, uploaded: 0 });
    await Promise.all([rm(a, { recursive: true }), rm(b, { recursive: true })]);
  }, 900_000);
});
