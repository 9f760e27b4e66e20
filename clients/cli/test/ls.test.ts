import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser } from './cli-runner.ts';
import { emptyDir, expectOk, newWorkspace, writeRandomFiles } from './workspace-fixtures.ts';

/** Each step starts a CLI process, seconds apiece on a loaded machine. */
const TIMEOUT = 240_000;

describe.each(['local', 'nats'] as const)('lode ls (%s bus)', (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  it(
    'lists a folder of the branch: subfolders with counts and sizes, then files; in a workspace by its folders on disk',
    async () => {
      const user = await CliUser.create(stack.baseUrl, await stack.seed.project());
      const ws = await newWorkspace(user);
      await writeRandomFiles(ws, 'Maps', 3, 16);
      await writeRandomFiles(ws, 'Art/sub', 2, 10);
      await writeFile(path.join(ws, 'root.bin'), 'abc');
      expectOk(await user.run(ws, ['push', '-m', 'import']));

      const root = expectOk(await user.run(ws, ['ls', '--json'])).json;
      expect(root).toMatchObject({
        branch: 'main',
        path: '',
        data: [
          { type: 'folder', name: 'Art', path: 'Art/', fileCount: 2, totalSize: 20 },
          { type: 'folder', name: 'Maps', path: 'Maps/', fileCount: 3, totalSize: 48 },
          { type: 'file', name: 'root.bin', path: 'root.bin', size: 3, version: 1 },
        ],
      });
      // A folder on disk, from inside the workspace.
      const maps = expectOk(await user.run(path.join(ws, 'Maps'), ['ls']));
      expect(maps.stdout.trimEnd().split('\n')).toEqual(['Maps/ on main', '  f00000.bin  16 B  v1', '  f00001.bin  16 B  v1', '  f00002.bin  16 B  v1']);
      const top = expectOk(await user.run(ws, ['ls']));
      expect(top.stdout.trimEnd().split('\n')).toEqual(['/ on main', '  Art/      2 files  20 B', '  Maps/     3 files  48 B', '  root.bin  3 B  v1']);

      // Elsewhere, a project path.
      const outside = await emptyDir();
      expect(expectOk(await user.run(outside, ['ls', 'Art', '--json'])).json.data).toEqual([
        { type: 'folder', name: 'sub', path: 'Art/sub/', fileCount: 2, totalSize: 20 },
      ]);
      const missing = await user.run(outside, ['ls', 'Nowhere', '--json']);
      expect(missing.code).toBe(2);
      expect(missing.json.error).toMatchObject({ code: 'not_found', path: 'Nowhere', branch: 'main' });
      const bad = await user.run(outside, ['ls', 'a//b', '--json']);
      expect(bad.code).toBe(2);
      expect(bad.json.error).toMatchObject({ code: 'validation_failed' });
    },
    TIMEOUT,
  );
});
