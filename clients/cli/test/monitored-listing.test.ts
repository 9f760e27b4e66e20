import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathProblem } from '@lode/sdk';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { FileMonitor } from '../src/fs-monitor.ts';
import { hashEntries, scanWorkspace, type ScannedWorkspace } from '../src/scan.ts';
import { Workspace } from '../src/workspace.ts';
import { BIN } from './cli-runner.ts';
import { emptyDir, unwatch } from './workspace-fixtures.ts';

/** Names decomposed on disk (NFD, as macOS writes them), whose project paths are their NFC forms. */
const DECOMPOSED = ['cafe\u0301.txt', 'De\u0301ja\u0300/vu.txt'];
const FILES = [
  'a.txt',
  'B.txt',
  'b.txt',
  'dir/c.txt',
  'dir/sub/d.txt',
  'dir2/e.txt',
  'build/out.bin',
  'x.lode-partial',
  'dir/y.lode-partial',
  'bad\\name.txt',
  ...DECOMPOSED,
];
const FOLDERS = ['dir', 'dir2', 'build', 'dir/sub'];
const RULES = ['', 'build/', '*.bin\n!build/keep.bin', 'dir/sub/'];

const op = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), file: fc.constantFrom(...FILES), content: fc.constantFrom('1', '22', '333', 'first') }),
  fc.record({ kind: fc.constant('delete' as const), file: fc.constantFrom(...FILES) }),
  fc.record({ kind: fc.constant('move' as const), from: fc.constantFrom(...FOLDERS), to: fc.constantFrom('moved', 'dir3') }),
  fc.record({ kind: fc.constant('removeFolder' as const), folder: fc.constantFrom(...FOLDERS, 'moved', 'dir3') }),
  fc.record({ kind: fc.constant('symlink' as const), file: fc.constantFrom(...FILES) }),
  fc.record({ kind: fc.constant('fileToFolder' as const), file: fc.constantFrom(...FILES) }),
  fc.record({ kind: fc.constant('rules' as const), rules: fc.constantFrom(...RULES) }),
  fc.record({ kind: fc.constant('nest' as const), folder: fc.constantFrom('dir2', 'dir3') }),
  fc.record({ kind: fc.constant('unnest' as const), folder: fc.constantFrom('dir2', 'dir3') }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

async function apply(root: string, step: Op): Promise<void> {
  const at = (name: string) => path.join(root, name);
  // A file standing where a folder is wanted (an earlier step's) goes first.
  const parent = async (name: string) => {
    await mkdir(path.dirname(at(name)), { recursive: true }).catch(async () => {
      await rm(path.dirname(at(name)), { force: true, recursive: true });
      await mkdir(path.dirname(at(name)), { recursive: true });
    });
  };
  if (step.kind === 'write') {
    await parent(step.file);
    // A symlink left there by an earlier step is replaced, not written through.
    await rm(at(step.file), { force: true, recursive: true });
    await writeFile(at(step.file), step.content);
  } else if (step.kind === 'delete') await rm(at(step.file), { force: true, recursive: true });
  else if (step.kind === 'move') {
    await rm(at(step.to), { force: true, recursive: true });
    await rename(at(step.from), at(step.to)).catch(() => undefined);
  } else if (step.kind === 'removeFolder') await rm(at(step.folder), { force: true, recursive: true });
  else if (step.kind === 'symlink') {
    await parent(step.file);
    await rm(at(step.file), { force: true, recursive: true });
    await symlink(at('a.txt'), at(step.file));
  } else if (step.kind === 'fileToFolder') {
    // Watchman keeps one entry a name: the file's is now the folder's.
    await rm(at(step.file), { force: true, recursive: true });
    await mkdir(at(step.file), { recursive: true });
    await writeFile(path.join(at(step.file), 'inside.txt'), 'inside');
  } else if (step.kind === 'rules') await writeFile(at('.lodeignore'), step.rules);
  else if (step.kind === 'nest') {
    await mkdir(path.join(at(step.folder), '.lode'), { recursive: true });
    await writeFile(path.join(at(step.folder), '.lode', 'state.json'), '{"format":2,"branch":"main"}');
  } else await rm(path.join(at(step.folder), '.lode'), { force: true, recursive: true });
}

/** What a listing says, partials in one order (the walk's and the monitor's differ). */
const listed = (scanned: ScannedWorkspace) => ({ files: scanned.files, partials: [...scanned.partials].sort(), nested: scanned.nested });

/** What status does with a listing: every file hashed into the index but those set aside, and the listing recorded. */
async function recordAsStatusDoes(workspace: Workspace, scanned: ScannedWorkspace): Promise<void> {
  const unhashed = scanned.files.filter((file) => pathProblem(file.path)).map((file) => file.path);
  await hashEntries(
    workspace,
    scanned.files.filter((file) => !unhashed.includes(file.path)),
  );
  if (scanned.listing) workspace.recordListing({ ...scanned.listing, unhashed });
  await workspace.save();
}

/** Where Watchman listens, as its own client says. */
const watchmanSocket = () => (JSON.parse(execFileSync('watchman', ['--no-pretty', 'get-sockname'], { encoding: 'utf8' })) as { sockname: string }).sockname;

const recordedSocket = async (root: string) => (JSON.parse(await readFile(path.join(root, '.lode', 'monitor.json'), 'utf8')) as { socket?: string }).socket;

/** Leaves a socket file at `at` whose listener is gone: a process listening there is killed outright, so nothing removes it. */
function deadListener(at: string): void {
  try {
    execFileSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(at)}, () => process.kill(process.pid, 'SIGKILL'))`]);
  } catch {
    // Killed, as meant.
  }
  if (!lstatSync(at).isSocket()) throw new Error(`no socket left at ${at}`);
}

/** `run` with no `watchman` on the PATH, nor a WATCHMAN_SOCK: Watchman is reached only through a socket the record names. */
async function withoutWatchmanOnPath<T>(run: () => Promise<T>): Promise<T> {
  const { PATH, WATCHMAN_SOCK } = process.env;
  process.env.PATH = path.dirname(process.execPath);
  delete process.env.WATCHMAN_SOCK;
  try {
    return await run();
  } finally {
    process.env.PATH = PATH;
    if (WATCHMAN_SOCK !== undefined) process.env.WATCHMAN_SOCK = WATCHMAN_SOCK;
  }
}

describe('listing the workspace from the file monitor (Watchman)', () => {
  const roots: string[] = [];
  afterEach(() => unwatch(roots));

  const monitored = async () => {
    const root = await emptyDir('lode-monitor-');
    roots.push(root);
    const workspace = await Workspace.create(root, 'main');
    await workspace.monitorOn();
    return root;
  };

  it('lists exactly what a walk lists, whatever happened to the files since the last listing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 16 }), async (steps) => {
        const root = await monitored();
        for (const file of FILES) await apply(root, { kind: 'write', file, content: 'first' });
        let fromMonitor = 0;
        for (const step of [...steps, undefined]) {
          const workspace = await Workspace.find(root);
          const scanned = await scanWorkspace(workspace);
          expect(scanned.monitorProblem).toBeUndefined();
          if (scanned.fromMonitor) fromMonitor += 1;
          expect(listed(scanned)).toEqual(listed(await scanWorkspace(await Workspace.find(root), { walk: true })));
          await recordAsStatusDoes(workspace, scanned);
          if (step) await apply(root, step);
        }
        // Only a change of the rules or of a nested workspace (steps on folders may move one) makes a listing walk again.
        const walking = steps.filter((step) => ['rules', 'nest', 'unnest', 'move', 'removeFolder'].includes(step.kind)).length;
        expect(fromMonitor).toBeGreaterThanOrEqual(steps.length - walking);
        await unwatch(roots);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 25), seed: Number(process.env.FC_SEED ?? 20_261_130), endOnFailure: true },
    );
  }, 300_000);

  it('walks once the monitor lost track, and when the record is of other ignore rules', async () => {
    const root = await monitored();
    await writeFile(path.join(root, 'a.txt'), 'first');
    const first = await Workspace.find(root);
    await recordAsStatusDoes(first, await scanWorkspace(first));
    const record = JSON.parse(await readFile(path.join(root, '.lode', 'monitor.json'), 'utf8')) as { listing: { clock: string } };
    expect(record.listing.clock).toMatch(/^c:/);

    // A clock of another instance of the watcher reads as a fresh one: nothing can be said since it.
    record.listing.clock = 'c:1:1:1:1';
    await writeFile(path.join(root, '.lode', 'monitor.json'), JSON.stringify(record));
    await writeFile(path.join(root, 'b.txt'), 'second');
    const lost = await Workspace.find(root);
    const walked = await scanWorkspace(lost);
    expect(walked.fromMonitor).toBe(false);
    expect(walked.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt']);
    await recordAsStatusDoes(lost, walked);
    expect((await scanWorkspace(await Workspace.find(root))).fromMonitor).toBe(true);

    // Another command saved the records since (whose lines a compaction can drop): its listing is not trusted.
    const other = await Workspace.find(root);
    other.hashes.delete('b.txt');
    await other.save();
    expect((await scanWorkspace(await Workspace.find(root))).fromMonitor).toBe(false);

    // Other ignore rules list other files.
    const again = await Workspace.find(root);
    await recordAsStatusDoes(again, await scanWorkspace(again));
    await writeFile(path.join(root, '.lodeignore'), 'b.txt\n');
    const ruled = await scanWorkspace(await Workspace.find(root));
    expect(ruled.fromMonitor).toBe(false);
    expect(ruled.files.map((f) => f.path)).toEqual(['.lodeignore', 'a.txt']);

    // Rules that take back a version-control folder, which Watchman does not watch, always walk.
    await writeFile(path.join(root, '.lodeignore'), '!.git/\n');
    for (let i = 0; i < 2; i += 1) {
      const vcs = await Workspace.find(root);
      const scanned = await scanWorkspace(vcs);
      expect(scanned.fromMonitor).toBe(false);
      await recordAsStatusDoes(vcs, scanned);
    }
  });

  it('walks where a .watchmanconfig leaves folders unwatched', async () => {
    const root = await emptyDir('lode-monitor-');
    await writeFile(path.join(root, '.watchmanconfig'), JSON.stringify({ ignore_dirs: ['build'] }));
    roots.push(root);
    await (await Workspace.create(root, 'main')).monitorOn();
    for (let i = 0; i < 2; i += 1) {
      await writeFile(path.join(root, 'build', `out${i}.bin`), 'x').catch(async () => {
        await mkdir(path.join(root, 'build'));
        await writeFile(path.join(root, 'build', `out${i}.bin`), 'x');
      });
      const workspace = await Workspace.find(root);
      const scanned = await scanWorkspace(workspace);
      expect(scanned.fromMonitor).toBe(false);
      expect(scanned.files.map((f) => f.path)).toContain(`build/out${i}.bin`);
      await recordAsStatusDoes(workspace, scanned);
    }
  });

  it('connects to the socket lode monitor on recorded, with no watchman process started', async () => {
    const root = await emptyDir('lode-monitor-');
    await Workspace.create(root, 'main');
    await writeFile(path.join(root, 'a.txt'), 'first');
    roots.push(root);
    const env = { ...process.env, WATCHMAN_SOCK: undefined };
    execFileSync(process.execPath, [BIN, 'monitor', 'on'], { cwd: root, env, stdio: 'ignore' });
    expect(await recordedSocket(root)).toBe(watchmanSocket());

    await withoutWatchmanOnPath(async () => {
      // Without the socket, the client must start `watchman` to find it: that fails here.
      const other = await emptyDir('lode-monitor-');
      await (await Workspace.create(other, 'main')).monitorOn();
      expect((await scanWorkspace(await Workspace.find(other))).monitorProblem).toBeDefined();

      const first = await Workspace.find(root);
      const walked = await scanWorkspace(first);
      expect(walked.monitorProblem).toBeUndefined();
      await recordAsStatusDoes(first, walked);
      await writeFile(path.join(root, 'b.txt'), 'second');
      const scanned = await scanWorkspace(await Workspace.find(root));
      expect(scanned.monitorProblem).toBeUndefined();
      expect(scanned.fromMonitor).toBe(true);
      expect(scanned.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt']);
    });
  });

  it('finds the socket again when the recorded one cannot be reached, and records it', async () => {
    const root = await monitored();
    await writeFile(path.join(root, 'a.txt'), 'first');
    const first = await Workspace.find(root);
    await recordAsStatusDoes(first, await scanWorkspace(first));
    expect(await recordedSocket(root)).toBe(watchmanSocket());

    // No such socket, a file where the socket was, a socket of the user's whose listener died: none answers.
    const stale = path.join(await emptyDir('lode-monitor-'), 'watchman.sock');
    const deadSocket = async () => {
      await rm(stale, { force: true });
      deadListener(stale);
    };
    for (const make of [async () => undefined, () => writeFile(stale, ''), deadSocket]) {
      await make();
      const record = JSON.parse(await readFile(path.join(root, '.lode', 'monitor.json'), 'utf8')) as { socket?: string };
      await writeFile(path.join(root, '.lode', 'monitor.json'), JSON.stringify({ ...record, socket: stale }));
      const workspace = await Workspace.find(root);
      expect(workspace.monitor?.socket).toBe(stale);
      const scanned = await scanWorkspace(workspace);
      expect(scanned.monitorProblem).toBeUndefined();
      expect(scanned.fromMonitor).toBe(true);
      expect(scanned.files.map((f) => f.path)).toEqual(['a.txt']);
      await recordAsStatusDoes(workspace, scanned);
      expect(await recordedSocket(root)).toBe(watchmanSocket());
    }
  });

  it("leaves the user's WATCHMAN_SOCK to win, unrecorded, and the environment as it was", async () => {
    const { WATCHMAN_SOCK } = process.env;
    const nowhere = path.join(await emptyDir('lode-monitor-'), 'watchman.sock');
    try {
      delete process.env.WATCHMAN_SOCK;
      const direct = await FileMonitor.connect(watchmanSocket());
      direct.end();
      expect(direct.socket).toBe(watchmanSocket());
      expect(process.env.WATCHMAN_SOCK).toBeUndefined();

      // Theirs is the socket connected to, whether it answers or not, and it is not ours to record.
      process.env.WATCHMAN_SOCK = nowhere;
      await expect(FileMonitor.connect(watchmanSocket())).rejects.toThrow(/ENOENT/);
      process.env.WATCHMAN_SOCK = watchmanSocket();
      const theirs = await FileMonitor.connect(nowhere);
      theirs.end();
      expect(theirs.socket).toBeUndefined();
      expect(process.env.WATCHMAN_SOCK).toBe(watchmanSocket());
    } finally {
      if (WATCHMAN_SOCK === undefined) delete process.env.WATCHMAN_SOCK;
      else process.env.WATCHMAN_SOCK = WATCHMAN_SOCK;
    }
  });

  it('is off until turned on, and forgets its record once turned off', async () => {
    const root = await emptyDir('lode-monitor-');
    const workspace = await Workspace.create(root, 'main');
    expect((await scanWorkspace(workspace)).listing).toBeUndefined();
    roots.push(root);
    await workspace.monitorOn();
    const on = await Workspace.find(root);
    expect(on.monitor).toEqual({ format: 1 });
    await recordAsStatusDoes(on, await scanWorkspace(on));
    expect((await Workspace.find(root)).monitor?.listing?.clock).toMatch(/^c:/);
    // Turned off while a command runs: that command's save does not turn it back on.
    const running = await Workspace.find(root);
    const scanned = await scanWorkspace(running);
    await on.monitorOff();
    await recordAsStatusDoes(running, scanned);
    expect((await Workspace.find(root)).monitor).toBeUndefined();
  });
});
