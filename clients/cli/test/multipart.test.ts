import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashFile, LodeClient, multipartEntry, putFile, resumablePaths, type MultipartForm } from '@lode/sdk';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { Workspace } from '../src/workspace.ts';
import { CliUser, collect } from './cli-runner.ts';
import { expectOk, expectSameTree, newWorkspace, RUN_MODES, writeText } from './workspace-fixtures.ts';

const MiB = 1024 * 1024;
/** Files from 32 MiB go in parts: 40 MiB is 3 parts up (16, 16, 8 MiB), 2 ranges down (32, 8 MiB). */
const THRESHOLD = ['--multipart-threshold', '32MiB'];
const TIMEOUT = 240_000;

async function writeBig(root: string, name: string, size: number): Promise<Buffer> {
  const bytes = randomBytes(size);
  await mkdir(path.dirname(path.join(root, name)), { recursive: true });
  await writeFile(path.join(root, name), bytes);
  return bytes;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(RUN_MODES)('lode push and pull of large files in parts (%s)', (_mode, options) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(options);
  });
  afterAll(async () => stack?.stop());

  const team = async () => {
    const owner = await stack.seed.project();
    const member = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const client = new LodeClient({ url: stack.baseUrl, key: owner.key, deviceId: owner.deviceId });
    return { ada: await CliUser.create(stack.baseUrl, owner), bo: await CliUser.create(stack.baseUrl, member), client };
  };

  it(
    'pushes a large file in parts, keeps its part MD5s in the hash cache, and pulls it in ranges',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeBig(a, 'Cinematics/intro.mov', 40 * MiB);
      await writeText(a, 'notes.txt', 'small');
      const pushed = expectOk(await ada.run(a, ['push', '-m', 'intro', '--json', ...THRESHOLD]));
      expect(pushed.json).toMatchObject({ uploaded: 2, partsUploaded: 3, partsResumed: 0 });
      const cache = (await Workspace.find(a)).hashes;
      expect(cache.get('Cinematics/intro.mov')?.parts?.md5s).toHaveLength(3);
      expect(cache.get('Cinematics/intro.mov')?.md5).toBeUndefined();
      expect(cache.get('notes.txt')?.md5).toBeDefined();

      const b = await newWorkspace(bo);
      const pulled = expectOk(await bo.run(b, ['pull', '--json', ...THRESHOLD]));
      expect(pulled.json).toMatchObject({ downloaded: 2, partsDownloaded: 2, partsResumed: 0 });
      expectSameTree(a, b);
    },
    TIMEOUT,
  );

  it(
    'resumes a push whose upload stopped half-way: only the parts the store lacks are PUT',
    async () => {
      const { ada, client } = await team();
      const a = await newWorkspace(ada);
      await writeBig(a, 'Cinematics/outro.mov', 40 * MiB);
      // What a push killed after its first part leaves: the reservation, and part 1 in the store.
      const file = path.join(a, 'Cinematics/outro.mov');
      const digest = await hashFile(file, undefined, undefined, { multipartThreshold: 32 * MiB });
      const [form] = (await client.initiateBatch([multipartEntry('Cinematics/outro.mov', digest as Required<typeof digest>)])) as MultipartForm[];
      const part1 = form.multipart.parts[0];
      await putFile('outro', part1.uploadUrl, part1.requiredHeaders, file, { retry: client.transport.retry, range: { start: 0, end: 16 * MiB } });

      const pushed = expectOk(await ada.run(a, ['push', '-m', 'outro', '--json', ...THRESHOLD]));
      expect(pushed.json).toMatchObject({ uploaded: 1, partsUploaded: 2, partsResumed: 1 });
    },
    TIMEOUT,
  );

  it(
    'resumes a push killed (SIGKILL) while its parts were moving',
    async () => {
      const { ada, client } = await team();
      const a = await newWorkspace(ada);
      // Six parts of 16 MiB, one at a time (-j 1): the test kills the push once the store holds some.
      const name = 'Cinematics/trailer.mov';
      await writeBig(a, name, 96 * MiB);
      const digest = await hashFile(path.join(a, name), undefined, undefined, { multipartThreshold: 32 * MiB });
      const entry = multipartEntry(name, digest as Required<typeof digest>);
      // The push's reservation: initiating the same file answers the same one (made here, if first).
      const [form] = (await client.initiateBatch([entry])) as MultipartForm[];
      const push = ada.spawn(a, ['push', '-m', 'trailer', '--json', '-j', '1', ...THRESHOLD]);
      const first = collect(push);
      let held = 0;
      while (push.exitCode === null && held < 2) {
        const parts = await client.uploadParts(form.fileId, form.version).catch(() => null);
        held = parts?.multipart.uploaded.length ?? held;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      push.kill('SIGKILL');
      const killed = await first;
      // On a fast machine the push may have finished before it could be killed: nothing to resume then.
      if (killed.code === 0) return;
      expect(held).toBeGreaterThanOrEqual(2);

      const resumed = expectOk(await ada.run(a, ['push', '-m', 'trailer', '--json', ...THRESHOLD]));
      expect(resumed.json.partsResumed).toBeGreaterThanOrEqual(held);
      expect(resumed.json.partsResumed + resumed.json.partsUploaded).toBe(6);
      expect(resumed.json).toMatchObject({ uploaded: 1 });
    },
    TIMEOUT,
  );

  it(
    'resumes a pull from the ranges on disk, and clears partial state of content no longer wanted',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      const bytes = await writeBig(a, 'Cinematics/credits.mov', 40 * MiB);
      expectOk(await ada.run(a, ['push', '-m', 'credits', ...THRESHOLD]));

      const b = await newWorkspace(bo);
      // What a pull killed after the first range leaves: the file's bytes so far at their offsets, and the record of them.
      const dest = path.join(b, 'Cinematics/credits.mov');
      await mkdir(path.dirname(dest), { recursive: true });
      const partial = resumablePaths(dest, sha256(bytes));
      const handle = await open(partial.data, 'w');
      await handle.write(bytes.subarray(0, 32 * MiB), 0, 32 * MiB, 0);
      await handle.truncate(bytes.length);
      await handle.close();
      await writeFile(partial.ranges, JSON.stringify({ sha256: sha256(bytes), size: bytes.length, rangeSize: 32 * MiB, held: [[0, 1]] }));
      // And one of a version no longer to download.
      const stale = resumablePaths(path.join(b, 'Cinematics/old.mov'), 'c'.repeat(64));
      await writeFile(stale.data, 'old');
      await writeFile(stale.ranges, '{}');

      const status = expectOk(await bo.run(b, ['status', '--json', ...THRESHOLD]));
      expect(status.json.counts).toMatchObject({ missing: 1, local_only: 0 });
      const pulled = expectOk(await bo.run(b, ['pull', '--json', ...THRESHOLD]));
      expect(pulled.json).toMatchObject({ downloaded: 1, partsDownloaded: 1, partsResumed: 1, partialsRemoved: 1 });
      expect((await readFile(dest)).equals(bytes)).toBe(true);
      expect(await readdir(path.dirname(dest))).toEqual(['credits.mov']);
    },
    TIMEOUT,
  );
});
