import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser, collect } from './cli-runner.ts';
import { expectOk, expectSameTree, newWorkspace, RUN_MODES, writeRandomFiles } from './workspace-fixtures.ts';

const MiB = 1024 * 1024;

/** The child's peak resident memory (VmHWM), read from /proc until it exits. */
async function runMeasuringPeak(child: ChildProcess): Promise<{ result: Awaited<ReturnType<typeof collect>>; peakBytes: number }> {
  let peakBytes = 0;
  let running = true;
  const done = collect(child).finally(() => (running = false));
  while (running) {
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    if (kb) peakBytes = Math.max(peakBytes, Number(kb) * 1024);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { result: await done, peakBytes };
}

/** A file of `size` zero bytes written sparse: no disk or time spent making it. */
async function sparseFile(file: string, size: number): Promise<void> {
  const handle = await open(file, 'w');
  await handle.truncate(size);
  await handle.close();
}

describe.each(RUN_MODES)('the lode CLI with a large workspace (%s)', (mode, options) => {
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

  it("keeps the CLI's peak memory flat while a 1 GiB file moves up and down", async () => {
    const project = await stack.seed.project();
    const user = await CliUser.create(stack.baseUrl, project);
    const a = await newWorkspace(user);
    await sparseFile(path.join(a, 'huge.bin'), 1024 * MiB);
    const push = await runMeasuringPeak(user.spawn(a, ['push', '-m', 'huge', '--json']));
    expectOk(push.result);
    const b = await newWorkspace(user);
    const pull = await runMeasuringPeak(user.spawn(b, ['pull', '--json']));
    expect(expectOk(pull.result).json).toMatchObject({ downloaded: 1, bytes: 1024 * MiB });
    // Node, the hash and 1 MiB pieces in flight fit well under the bound; a buffered gigabyte is four times it.
    expect(push.peakBytes).toBeGreaterThan(0);
    expect(push.peakBytes).toBeLessThan(256 * MiB);
    expect(pull.peakBytes).toBeLessThan(256 * MiB);
    console.log(`lode peak RSS moving 1 GiB (${mode}): push ${(push.peakBytes / MiB).toFixed(0)} MiB, pull ${(pull.peakBytes / MiB).toFixed(0)} MiB`);
    await Promise.all([rm(a, { recursive: true }), rm(b, { recursive: true })]);
  }, 900_000);
});
