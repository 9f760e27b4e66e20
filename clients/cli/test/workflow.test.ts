import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, hashFile, isPartialDownload, LodeClient, uploadFiles, type CommitRequest, type UploadedFile } from '@lode/sdk';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser, collect } from './cli-runner.ts';
import { emptyDir, expectOk, expectSameTree, newWorkspace, readText, writeRandomFiles, writeText } from './workspace-fixtures.ts';

/** Each step starts a CLI process, seconds apiece on a loaded machine. */
const TIMEOUT = 240_000;

describe.each(['local', 'nats'] as const)('the lode CLI as a user runs it (%s bus)', (bus) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  /** Two teammates of one project, each with a key and a config dir of their own. */
  const team = async () => {
    const owner = await stack.seed.project();
    const member = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    return { ada: await CliUser.create(stack.baseUrl, owner), bo: await CliUser.create(stack.baseUrl, member) };
  };

  /** The files `lode status --json` lists as anything but up to date. */
  const changed = (status: { files: { path: string; status: string }[] }) =>
    status.files.filter((f) => f.status !== 'up_to_date').map(({ path, status }) => ({ path, status }));

  const commitCount = async (user: CliUser, dir: string) => (expectOk(await user.run(dir, ['log', '--json', '-n', '200'])).json.data as unknown[]).length;

  /**
   * What the CLI alone decides (names, ignores, options, partial files, interrupts, its output) does
   * not depend on the server's bus: it runs against the embedded one only. What crosses the server
   * (pushes, pulls, conflicts, locks, branches, resumed drafts) runs on both.
   */
  const clientSide = (name: string, test: () => Promise<void>, timeout: number) => {
    if (bus === 'local') it(name, test, timeout);
  };

  it(
    'pushes a workspace, pulls it byte for byte into an empty one, and a second push uploads nothing',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeRandomFiles(a, 'Textures', 30, 70_000);
      await writeText(a, 'Levels/Forest.umap', 'forest v1');
      await writeText(a, 'notes.tmp', 'ignored');
      await writeText(a, '.lodeignore', '*.tmp\n');
      const pushed = expectOk(await ada.run(a, ['push', '-m', 'first', '--json']));
      expect(pushed.json).toMatchObject({ commit: { sequenceNum: 1, fileCount: 32 }, uploaded: 32 });

      const b = await newWorkspace(bo);
      const pulled = expectOk(await bo.run(b, ['pull', '--json']));
      expect(pulled.json).toMatchObject({ downloaded: 32, kept: [], conflicts: [] });
      await rm(path.join(a, 'notes.tmp'));
      expectSameTree(a, b);

      const again = expectOk(await ada.run(a, ['push', '-m', 'again', '--json']));
      expect(again.json).toMatchObject({ commit: null, uploaded: 0 });
      const status = expectOk(await bo.run(b, ['status', '--json']));
      expect(status.json.counts).toMatchObject({ up_to_date: 32, modified: 0, local_only: 0, outdated: 0, missing: 0 });
    },
    TIMEOUT,
  );

  it(
    "stops a push on a teammate's lock with exit 3 and a message naming the file and the holder, committing nothing",
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeText(a, 'Levels/Castle.umap', 'v1');
      expectOk(await ada.run(a, ['push', '-m', 'castle']));
      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));
      expectOk(await bo.run(b, ['lock', 'Levels/Castle.umap', '--note', 'lighting pass']));

      await writeText(a, 'Levels/Castle.umap', 'v2 by ada');
      const refused = await ada.run(a, ['push', '-m', 'castle v2']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/Levels\/Castle\.umap is locked by User [0-9a-f]+ since \S+: "lighting pass"\n/);
      expect(await commitCount(ada, a)).toBe(1);
      const json = await ada.run(a, ['push', '-m', 'castle v2', '--json']);
      expect(json.code).toBe(3);
      expect(json.json.error).toMatchObject({ code: 'file_locked', lockedFiles: [{ path: 'Levels/Castle.umap', isMine: false }] });

      expectOk(await bo.run(b, ['unlock', 'Levels/Castle.umap']));
      expect(expectOk(await ada.run(a, ['push', '-m', 'castle v2', '--json'])).json.commit.sequenceNum).toBe(2);
    },
    TIMEOUT,
  );

  it(
    'detects a conflict between two workspaces: push refuses it (exit 3), pull never overwrites it',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeText(a, 'hero.fbx', 'base');
      expectOk(await ada.run(a, ['push', '-m', 'base']));
      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));

      await writeText(b, 'hero.fbx', 'bo edit');
      expectOk(await bo.run(b, ['push', '-m', 'bo edit']));
      await writeText(a, 'hero.fbx', 'ada edit');
      const status = await ada.run(a, ['status', '--json']);
      expect(status.code).toBe(3);
      expect(status.json.files).toEqual([expect.objectContaining({ path: 'hero.fbx', status: 'conflict', remoteVersion: 2 })]);
      const listed = await ada.run(a, ['status']);
      expect([listed.code, listed.stdout]).toEqual([
        3,
        expect.stringContaining('conflict (changed here and remotely: resolve before pushing): 1\n  hero.fbx\n'),
      ]);
      const push = await ada.run(a, ['push', '-m', 'ada edit']);
      expect(push.code).toBe(3);
      expect(push.stderr).toContain('hero.fbx');
      const pull = await ada.run(a, ['pull', '--json']);
      expect(pull.code).toBe(3);
      expect(pull.json).toMatchObject({ downloaded: 0, conflicts: ['hero.fbx'] });
      expect(await readText(a, 'hero.fbx')).toBe('ada edit');

      // Moving one's copy aside resolves it: pull takes theirs.
      await rm(path.join(a, 'hero.fbx'));
      expectOk(await ada.run(a, ['pull']));
      expect(await readText(a, 'hero.fbx')).toBe('bo edit');
    },
    TIMEOUT,
  );

  it(
    'calls a file both teammates added a conflict, and resolves it and "edited here, deleted there" by the README\'s steps',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      const b = await newWorkspace(bo);
      await writeText(a, 'y.txt', 'ada');
      await writeText(a, 'gone.txt', 'v1');
      expectOk(await ada.run(a, ['push', '-m', 'ada adds']));
      // Bo made his own y.txt without pulling Ada's: a push would replace hers unseen.
      await writeText(b, 'y.txt', 'bo');
      const status = await bo.run(b, ['status', '--json']);
      expect(status.code).toBe(3);
      expect(status.json.files).toContainEqual(expect.objectContaining({ path: 'y.txt', status: 'conflict', remoteVersion: 1 }));
      expect((await bo.run(b, ['push', '-m', 'bo adds'])).code).toBe(3);
      expect(await commitCount(bo, b)).toBe(1);
      // Keep a copy, pull theirs, bring the change back, push.
      await rm(path.join(b, 'y.txt'));
      expectOk(await bo.run(b, ['pull']));
      expect(await readText(b, 'y.txt')).toBe('ada');
      await writeText(b, 'y.txt', 'bo');
      expectOk(await bo.run(b, ['push', '-m', 'bo merges y']));

      // Edited by Bo, deleted by Ada: the same steps take Bo's file back into the project.
      await writeText(b, 'gone.txt', 'bo edit');
      await rm(path.join(a, 'gone.txt'));
      expectOk(await ada.run(a, ['push', '-m', 'ada deletes']));
      const refused = await bo.run(b, ['push', '-m', 'bo edits']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain('gone.txt (deleted remotely)');
      await rm(path.join(b, 'gone.txt'));
      expectOk(await bo.run(b, ['pull']));
      await writeText(b, 'gone.txt', 'bo edit');
      expect(expectOk(await bo.run(b, ['push', '-m', 'bo keeps gone.txt', '--json'])).json).toMatchObject({ commit: { fileCount: 1 }, uploaded: 1 });
      expectOk(await ada.run(a, ['pull']));
      expect(await readText(a, 'gone.txt')).toBe('bo edit');
      expect(await readText(a, 'y.txt')).toBe('bo');
    },
    TIMEOUT,
  );

  clientSide(
    'leaves what .lodeignore names alone both ways, files already in the project included: never deleted for the team, never overwritten',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeText(a, 'feat.txt', 'v1');
      await writeText(a, 'Saved/cache.bin', 'c1');
      // Another version-control system's state, left out by default as .lode/ is.
      for (const vcs of ['.git/HEAD', 'Tools/.svn/wc.db', 'Art/.hg/store/data', '.p4config']) await writeText(a, vcs, 'not for Lode');
      expect(expectOk(await ada.run(a, ['push', '-m', 'one', '--json'])).json).toMatchObject({ commit: { fileCount: 2 } });
      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));

      // Ada stops sharing her copies: she ignores them, edits one and deletes the other.
      await writeText(a, '.lodeignore', 'feat.txt\nSaved/\n');
      await writeText(a, 'feat.txt', 'ada private');
      await rm(path.join(a, 'Saved'), { recursive: true });
      const status = expectOk(await ada.run(a, ['status', '--json', '--all'])).json;
      expect(status.files.map((f: { path: string }) => f.path)).toEqual(['.lodeignore']);
      expect(expectOk(await ada.run(a, ['push', '-m', 'ignore', '--json'])).json).toMatchObject({ deleted: 0, uploaded: 1 });
      const named = await ada.run(a, ['push', 'feat.txt', '-m', 'named', '--json']);
      expect(named.code).toBe(2);
      expect(named.json.error).toMatchObject({ code: 'no_such_path', paths: ['feat.txt'] });

      // Bo, before he has the ignore file, pushes a new feat.txt: Ada's ignored copy stays hers.
      await writeText(b, 'feat.txt', 'v2 by bo');
      expectOk(await bo.run(b, ['push', '-m', 'bo v2']));
      expectOk(await ada.run(a, ['pull']));
      expect(await readText(a, 'feat.txt')).toBe('ada private');
      await expect(stat(path.join(a, 'Saved'))).rejects.toThrow();
      expectOk(await bo.run(b, ['pull']));
      expect(await readText(b, 'Saved/cache.bin')).toBe('c1');
      expect(await readText(b, '.lodeignore')).toBe('feat.txt\nSaved/\n');
    },
    TIMEOUT,
  );

  it(
    "refuses a branch that does not exist rather than create it or show main as it, and lists the workspace branch's log",
    async () => {
      const { ada } = await team();
      const a = await newWorkspace(ada);
      await writeText(a, 'x.txt', 'x');
      const typo = await ada.run(a, ['push', '-m', 'x', '--branch', 'featrue', '--json']);
      expect(typo.code).toBe(2);
      expect(typo.json.error).toMatchObject({ code: 'branch_not_found', branch: 'featrue' });
      expectOk(await ada.run(a, ['push', '-m', 'on main']));

      expectOk(await ada.run(a, ['branch', 'create', 'b2']));
      const w = await emptyDir();
      expectOk(await ada.run(w, ['init', '--branch', 'b2']));
      expectOk(await ada.run(w, ['pull']));
      await writeText(w, 'onb2.txt', 'b2 only');
      expectOk(await ada.run(w, ['push', '-m', 'on b2']));
      expect(expectOk(await ada.run(w, ['log', '--json'])).json.data.map((c: { message: string }) => c.message)).toEqual(['on b2', 'on main']);
      const restore = await ada.run(w, ['restore', 'x.txt', '--to', '1', '--json']);
      expect(restore.code).toBe(2);
      expect(restore.json.error).toMatchObject({ code: 'restore_on_main_only', branch: 'b2' });

      expectOk(await ada.run(a, ['branch', 'delete', 'b2']));
      const gone = await ada.run(a, ['branch', 'delete', 'b2']);
      expect([gone.code, gone.stderr]).toEqual([2, 'error: No branch "b2": `lode branch list` shows the branches.\n']);
      const orphan = await ada.run(w, ['status']);
      expect(orphan.code).toBe(2);
      expect(orphan.stderr).toContain('This workspace is on branch "b2", which does not exist');
      await mkdir(path.join(w, 'sub'));
      const nested = await ada.run(path.join(w, 'sub'), ['init']);
      expect(nested.code).toBe(1);
      expect(nested.stderr).toContain(`inside the workspace ${w}`);
    },
    TIMEOUT,
  );

  it(
    'follows the branch it pushed to: status names it and its own latest commit, the next push goes there, and pull --branch main brings main back',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeText(a, 'y.txt', 'v1');
      await writeText(a, 'keep.txt', 'keep');
      expectOk(await ada.run(a, ['push', '-m', 'v1']));
      expectOk(await ada.run(a, ['branch', 'create', 'exp']));
      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));

      await writeText(a, 'y.txt', 'experiment');
      await writeText(a, 'Exp/new.txt', 'experiment only');
      await writeText(a, 'Exp/other.txt', 'experiment only');
      const pushed = expectOk(await ada.run(a, ['push', '-m', 'try it', '--branch', 'exp']));
      expect(pushed.stdout).toContain('Committed #2 on exp: 3 files');
      expect(pushed.stdout).toContain('This workspace is now on branch exp (it was on main)');
      // The project's latest commit is main's now; Ada's status is about exp and exp's latest commit.
      await writeText(b, 'keep.txt', 'bo on main');
      expectOk(await bo.run(b, ['push', '-m', 'bo on main']));
      const status = expectOk(await ada.run(a, ['status']));
      expect(status.stdout.split('\n')[0]).toBe('On branch exp (its latest commit: #2)');
      expect(status.stdout).toContain('4 files up to date.');
      expect(expectOk(await ada.run(a, ['status', '--json'])).json).toMatchObject({
        branch: 'exp',
        workspaceBranch: 'exp',
        headSequenceNum: 2,
        latestCommitSeq: 3,
        counts: { modified: 0, local_only: 0, up_to_date: 4 },
      });

      // The next routine push goes to exp, never main.
      await writeText(a, 'y.txt', 'experiment 2');
      expect(expectOk(await ada.run(a, ['push', '-m', 'more', '--json'])).json).toMatchObject({ commit: { branch: 'exp' }, switchedFrom: null });
      expect((expectOk(await bo.run(b, ['log', '--json'])).json.data as { message: string }[]).map((c) => c.message)).toEqual(['bo on main', 'v1']);
      expectOk(await bo.run(b, ['pull']));
      expect(await readText(b, 'y.txt')).toBe('v1');

      // Back to main: files unchanged since synced on exp become main's, exp's own file goes, an edit stays.
      await writeText(a, 'Exp/new.txt', 'edited');
      const back = expectOk(await ada.run(a, ['pull', '--branch', 'main', '--json'])).json;
      expect(back).toMatchObject({ switchedFrom: 'exp', downloaded: 2, removed: 1 });
      expect([await readText(a, 'y.txt'), await readText(a, 'keep.txt'), await readText(a, 'Exp/new.txt')]).toEqual(['v1', 'bo on main', 'edited']);
      await expect(stat(path.join(a, 'Exp/other.txt'))).rejects.toThrow();
      const onMain = expectOk(await ada.run(a, ['status', '--json']));
      expect(onMain.json).toMatchObject({ branch: 'main', workspaceBranch: 'main', headSequenceNum: 3 });
      expect(changed(onMain.json)).toEqual([{ path: 'Exp/new.txt', status: 'local_only' }]);
      expect(expectOk(await ada.run(a, ['status', '--branch', 'exp'])).stdout.split('\n')[0]).toBe(
        'Compared with branch exp (its latest commit: #4); this workspace is on main',
      );
    },
    TIMEOUT,
  );

  clientSide(
    'sets aside names the API cannot store, syncing the rest; push refuses them until renamed or ignored',
    async () => {
      const { ada } = await team();
      const a = await newWorkspace(ada);
      const mojibake = 'RÃ\u0089sumÃ©.txt'; // a cp1252 name unpacked as Latin-1: U+0089 is a C1 control character
      await writeText(a, mojibake, 'cv');
      await writeText(a, 'ok.txt', 'fine');
      const status = expectOk(await ada.run(a, ['status', '--json']));
      expect(status.json.unstorable).toEqual([{ path: mojibake, problem: 'it contains control characters', remote: false }]);
      expect(status.json.files).toEqual([expect.objectContaining({ path: 'ok.txt', status: 'local_only' })]);
      const refused = await ada.run(a, ['push', '-m', 'x', '--json']);
      expect(refused.code).toBe(1);
      expect(refused.json.error).toMatchObject({ code: 'invalid_path', files: [{ path: mojibake }] });
      expect(expectOk(await ada.run(a, ['push', 'ok.txt', '-m', 'the rest', '--json'])).json).toMatchObject({ uploaded: 1 });
      // Named on the command line, it reaches push's refusal, not "no such file".
      expect((await ada.run(a, ['push', mojibake, '-m', 'x', '--json'])).json.error).toMatchObject({ code: 'invalid_path' });
      await writeText(a, '.lodeignore', 'R*sum*.txt\n');
      expectOk(await ada.run(a, ['push', '-m', 'ignore file']));
    },
    TIMEOUT,
  );

  clientSide(
    'keeps to its own workspace: leaves a nested workspace alone both ways, refuses to init over an unreadable state, and `.` names the root',
    async () => {
      const { ada, bo } = await team();
      const outer = await emptyDir();
      expectOk(await ada.run(outer, ['init']));
      expectOk(await ada.run(outer, ['pull', '.']));
      await writeText(outer, 'top.txt', 'top');
      await writeText(outer, 'Tools/x.txt', 'v1');
      expectOk(await ada.run(outer, ['push', '-m', 'one']));
      // Tools/ becomes a workspace of its own: its files are no longer the outer one's to push or pull.
      await writeText(outer, 'Tools/.lode/state.json', JSON.stringify({ branch: 'main', files: {} }));
      const status = expectOk(await ada.run(outer, ['status', '--json', '--all'])).json;
      expect(status.files.map((f: { path: string }) => f.path)).toEqual(['top.txt']);
      expect(status.nestedWorkspaces).toEqual(['Tools']);
      expect(expectOk(await ada.run(outer, ['push', '-m', 'two', '--json'])).json).toMatchObject({ commit: null, deleted: 0 });
      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));
      await writeText(b, 'Tools/x.txt', 'bo');
      expectOk(await bo.run(b, ['push', '-m', 'bo']));
      expectOk(await ada.run(outer, ['pull']));
      expect(await readText(outer, 'Tools/x.txt')).toBe('v1');

      const broken = await emptyDir();
      await writeText(broken, '.lode/state.json', '{');
      const refused = await ada.run(broken, ['init']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`Cannot read the workspace state ${path.join(broken, '.lode', 'state.json')}`);
      expect(await readText(broken, '.lode/state.json')).toBe('{');
    },
    TIMEOUT,
  );

  it(
    'drops an interrupted push to a branch deleted since, saying so, rather than make the branch again; pull --branch moves the workspace to that branch and back',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeText(a, 'y.txt', 'v1');
      await writeText(a, 'z.txt', 'z');
      expectOk(await ada.run(a, ['push', '-m', 'v1']));
      expectOk(await ada.run(a, ['branch', 'create', 'gone']));
      const interrupted = {
        idempotencyKey: randomUUID(),
        confirmed: {},
        commit: { request: { message: 'lost', branch: 'gone', fileVersions: [] }, uploads: [], deletes: [] },
      };
      await writeText(a, '.lode/push-journal.json', JSON.stringify(interrupted));
      expectOk(await ada.run(a, ['branch', 'delete', 'gone']));
      const resumed = expectOk(await ada.run(a, ['push', '-m', 'after']));
      expect(resumed.stderr).toContain('The interrupted push to gone was dropped');
      expect((expectOk(await ada.run(a, ['branch', 'list', '--json'])).json.data as { name: string }[]).map((x) => x.name)).toEqual(['main']);

      // Bo brings another branch's state in: his workspace is on that branch now, where nothing reads
      // as his edit or his deletion, and main's files come back when he pulls main again.
      expectOk(await ada.run(a, ['branch', 'create', 'feature']));
      await writeText(a, 'y.txt', 'feature v2');
      await rm(path.join(a, 'z.txt'));
      expectOk(await ada.run(a, ['push', '-m', 'v2', '--branch', 'feature']));
      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));
      expect(expectOk(await bo.run(b, ['pull', '--branch', 'feature', '--json'])).json).toMatchObject({ switchedFrom: 'main', downloaded: 1, removed: 1 });
      expect(await readText(b, 'y.txt')).toBe('feature v2');
      await expect(stat(path.join(b, 'z.txt'))).rejects.toThrow();
      expect(expectOk(await bo.run(b, ['status', '--json'])).json).toMatchObject({
        branch: 'feature',
        counts: { up_to_date: 1, modified: 0, missing: 0, deleted_local: 0 },
      });
      expect(expectOk(await bo.run(b, ['push', '-m', 'nothing', '--json'])).json).toMatchObject({ commit: null });
      expectOk(await bo.run(b, ['pull', '--branch', 'main']));
      expect([await readText(b, 'y.txt'), await readText(b, 'z.txt')]).toEqual(['v1', 'z']);
    },
    TIMEOUT,
  );

  clientSide(
    'pushes a decomposed (macOS) name as its NFC path, updates it in place on pull, and refuses names that differ only in case',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      const decomposed = 'Levels/Cafe\u0301.umap';
      const composed = 'Levels/Caf\u00e9.umap';
      await writeText(a, decomposed, 'v1');
      await writeText(a, 'Docs/Readme.txt', 'one');
      await writeText(a, 'Docs/README.txt', 'two');
      const status = expectOk(await ada.run(a, ['status', '--json']));
      expect(status.json.caseCollisions).toEqual([['Docs/README.txt', 'Docs/Readme.txt']]);
      expect(status.json.files).toContainEqual(expect.objectContaining({ path: composed, status: 'local_only' }));

      const refused = await ada.run(a, ['push', '-m', 'both', '--json']);
      expect(refused.code).toBe(1);
      expect(refused.json.error).toMatchObject({ code: 'path_case_conflict', collisions: [['Docs/README.txt', 'Docs/Readme.txt']] });
      expect(await commitCount(ada, a)).toBe(0);

      await rm(path.join(a, 'Docs/README.txt'));
      expect(expectOk(await ada.run(a, ['push', '-m', 'one of each', '--json'])).json).toMatchObject({ commit: { fileCount: 2 }, uploaded: 2 });
      expect(expectOk(await ada.run(a, ['status', '--json'])).json.counts).toMatchObject({ up_to_date: 2, local_only: 0, missing: 0 });

      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));
      expect(await readText(b, composed)).toBe('v1');
      await writeText(b, composed, 'v2');
      expectOk(await bo.run(b, ['push', '-m', 'v2']));
      // Ada's file keeps its decomposed name: pull writes over it instead of adding a second café.
      expect(expectOk(await ada.run(a, ['pull', '--json'])).json).toMatchObject({ downloaded: 1 });
      expect(await readdir(path.join(a, 'Levels'))).toEqual(['Cafe\u0301.umap']);
      expect(await readText(a, decomposed)).toBe('v2');
    },
    TIMEOUT,
  );

  it(
    'lists history and locks, restores a version, and works a branch from create to merge and delete',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeText(a, 'hero.fbx', 'v1');
      expectOk(await ada.run(a, ['push', '-m', 'one']));
      await writeText(a, 'hero.fbx', 'v2');
      expectOk(await ada.run(a, ['push', '-m', 'two']));
      const history = expectOk(await ada.run(a, ['history', 'hero.fbx', '--json'])).json;
      expect(history).toMatchObject({ path: 'hero.fbx', data: [{ version: 2 }, { version: 1 }] });

      const restored = expectOk(await ada.run(a, ['restore', 'hero.fbx', '--to', '1', '--json'])).json;
      expect(restored).toMatchObject({ sequenceNum: 3, restored: [{ newVersion: 3 }] });
      expectOk(await ada.run(a, ['pull']));
      expect(await readText(a, 'hero.fbx')).toBe('v1');
      const again = await ada.run(a, ['restore', 'hero.fbx', '--to', '3']);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/Nothing was restored:\n {2}hero\.fbx: .+version 3/);

      expectOk(await ada.run(a, ['lock', 'hero.fbx', '--note', 'rigging']));
      const b = await newWorkspace(bo);
      expect(expectOk(await bo.run(b, ['locks', '--json'])).json.data).toEqual([expect.objectContaining({ path: 'hero.fbx', isMine: false, note: 'rigging' })]);
      expectOk(await ada.run(a, ['unlock', 'hero.fbx']));

      expectOk(await ada.run(a, ['branch', 'create', 'rig-test']));
      await writeText(a, 'rig.bin', 'on the branch');
      expectOk(await ada.run(a, ['push', '-m', 'rig', '--branch', 'rig-test']));
      const names = (expectOk(await ada.run(a, ['branch', 'list', '--json'])).json.data as { name: string }[]).map((x) => x.name);
      expect(names).toEqual(['main', 'rig-test']);
      expectOk(await bo.run(b, ['pull']));
      await expect(stat(path.join(b, 'rig.bin'))).rejects.toThrow();
      const merged = expectOk(await ada.run(a, ['branch', 'merge', 'rig-test', '--json'])).json;
      expect(merged).toMatchObject({ kind: 'merge', branch: 'main', fileCount: 1 });
      expectOk(await bo.run(b, ['pull']));
      expect(await readText(b, 'rig.bin')).toBe('on the branch');
      expectOk(await ada.run(a, ['branch', 'delete', 'rig-test']));
      expect((expectOk(await ada.run(a, ['branch', 'list', '--json'])).json.data as { name: string }[]).map((x) => x.name)).toEqual(['main']);
    },
    TIMEOUT,
  );

  clientSide(
    'reverts edited and deleted files to the version last synced, byte for byte, and leaves a new file alone',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      const original = randomBytes(200_000);
      await writeFile(path.join(a, 'hero.fbx'), original);
      await writeText(a, 'Levels/a.umap', 'a1');
      await writeText(a, 'Levels/b.umap', 'b1');
      await writeText(a, 'shared.txt', 's1');
      expectOk(await ada.run(a, ['push', '-m', 'one']));

      await writeFile(path.join(a, 'hero.fbx'), randomBytes(1000));
      await rm(path.join(a, 'Levels/a.umap'));
      await writeText(a, 'Levels/b.umap', 'b edited');
      await writeText(a, 'Levels/new.umap', 'mine');
      const reverted = expectOk(await ada.run(a, ['revert', 'hero.fbx', 'Levels']));
      expect(reverted.stdout.trimEnd().split('\n').sort()).toEqual([
        'left Levels/new.umap alone: not in Lode (never pushed or pulled here); delete it yourself if you do not want it',
        'reverted Levels/a.umap (v1, as last synced)',
        'reverted Levels/b.umap (v1, as last synced)',
        'reverted hero.fbx (v1, as last synced)',
      ]);
      expect((await readFile(path.join(a, 'hero.fbx'))).equals(original)).toBe(true);
      expect([await readText(a, 'Levels/a.umap'), await readText(a, 'Levels/b.umap'), await readText(a, 'Levels/new.umap')]).toEqual(['a1', 'b1', 'mine']);
      expect(changed(expectOk(await ada.run(a, ['status', '--json'])).json)).toEqual([{ path: 'Levels/new.umap', status: 'local_only' }]);
      expect(expectOk(await ada.run(a, ['revert', 'hero.fbx', '--json'])).json).toEqual({ reverted: [], unchanged: ['hero.fbx'], notInLode: [] });

      // Edited here while a teammate pushed a newer version: revert puts back the one synced here, which pull then updates.
      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));
      await writeText(b, 'shared.txt', 's2 by bo');
      expectOk(await bo.run(b, ['push', '-m', 'bo']));
      await writeText(a, 'shared.txt', 'ada edit');
      expect(expectOk(await ada.run(a, ['revert', 'shared.txt', '--json'])).json).toMatchObject({ reverted: [{ path: 'shared.txt', version: 1 }] });
      expect(await readText(a, 'shared.txt')).toBe('s1');
      expectOk(await ada.run(a, ['pull']));
      expect(await readText(a, 'shared.txt')).toBe('s2 by bo');
      const typo = await ada.run(a, ['revert', 'nope.txt', '--json']);
      expect([typo.code, typo.json.error.code]).toEqual([2, 'no_such_path']);
    },
    TIMEOUT,
  );

  clientSide(
    'stops a pull on Ctrl-C saying what to do, with no partial file left; the next pull completes',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeRandomFiles(a, 'Video', 1, 150 * 1024 * 1024);
      expectOk(await ada.run(a, ['push', '-m', 'cutscene']));
      const b = await newWorkspace(bo);
      // In one stream: a file in ranges keeps its partial file to resume from (the next test).
      const pulling = bo.spawn(b, ['pull', '--multipart-threshold', '1GiB']);
      const result = collect(pulling);
      // The progress header comes before the download starts: the interrupt lands while 150 MB are still to move.
      // Once: a second Ctrl-C stops the CLI outright, and the progress line may be drawn again.
      let interrupted = false;
      pulling.stderr?.on('data', (d: Buffer) => {
        if (!interrupted && d.toString().includes('pull: 1 file,')) interrupted = pulling.kill('SIGINT');
      });
      const stopped = await result;
      // On a machine slow to deliver the signal the pull may have finished first: nothing was interrupted then.
      if (stopped.code === 0) return expectSameTree(a, b);
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toContain('Interrupted (Ctrl-C). No file was left half-written.');
      // The folder the download was to land in may exist by then; no file may, whole or partial.
      const leftovers = (await readdir(b, { recursive: true, withFileTypes: true })).filter(
        (e) => e.isFile() && !path.relative(b, e.parentPath).startsWith('.lode'),
      );
      expect(leftovers.map((e) => e.name)).toEqual([]);
      expect(expectOk(await bo.run(b, ['pull', '--json'])).json).toMatchObject({ downloaded: 1 });
      expectSameTree(a, b);
    },
    TIMEOUT,
  );

  clientSide(
    'stops a pull of a file in ranges on Ctrl-C keeping only its hidden partial file, which the next pull resumes from',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeRandomFiles(a, 'Video', 1, 150 * 1024 * 1024);
      expectOk(await ada.run(a, ['push', '-m', 'cutscene']));
      const b = await newWorkspace(bo);
      // One range at a time (-j 1): the interrupt lands once the first ones are on disk.
      const pulling = bo.spawn(b, ['pull', '-j', '1', '--multipart-threshold', '64MiB']);
      const result = collect(pulling);
      // Once: a second Ctrl-C stops the CLI outright. Checks of the record overlap on a slow disk, so
      // whether one was sent is asked again after the check's last await, in the tick that sends it.
      let interrupted = false;
      const watcher = setInterval(() => {
        void readdir(path.join(b, 'Video')).then(
          async (names) => {
            const record = names.find((n) => n.endsWith('.lode-ranges'));
            if (interrupted || !record || !(await readFile(path.join(b, 'Video', record), 'utf8')).includes('[[0,')) return;
            if (!interrupted) interrupted = pulling.kill('SIGINT');
          },
          () => undefined,
        );
      }, 20);
      const stopped = await result;
      clearInterval(watcher);
      // On a fast machine the pull may have finished first: nothing to resume then.
      if (stopped.code === 0) return;
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toContain('Interrupted (Ctrl-C). No file was left half-written.');
      const leftovers = (await readdir(b, { recursive: true, withFileTypes: true })).filter(
        (e) => e.isFile() && !path.relative(b, e.parentPath).startsWith('.lode'),
      );
      expect(leftovers.map((e) => e.name).every(isPartialDownload)).toBe(true);
      const resumed = expectOk(await bo.run(b, ['pull', '--json', '--multipart-threshold', '64MiB'])).json;
      expect(resumed).toMatchObject({ downloaded: 1, partsDownloaded: expect.any(Number) });
      expect(resumed.partsResumed).toBeGreaterThanOrEqual(1);
      expect(resumed.partsResumed + resumed.partsDownloaded).toBe(5);
      expectSameTree(a, b);
    },
    TIMEOUT,
  );

  clientSide(
    'clears the partial downloads a killed pull left, once an hour old, and keeps a fresh one and any other file',
    async () => {
      const { ada } = await team();
      const a = await newWorkspace(ada);
      const stale = 'Video/.intro.mov.0a1b2c3d.lode-tmp';
      const fresh = 'Video/.outro.mov.4e5f6a7b.lode-tmp';
      const mine = 'Video/notes.lode-tmp';
      for (const name of [stale, fresh, mine]) await writeText(a, name, 'partial');
      const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
      await utimes(path.join(a, stale), twoHoursAgo, twoHoursAgo);
      await utimes(path.join(a, mine), twoHoursAgo, twoHoursAgo);
      expect(expectOk(await ada.run(a, ['pull', '--json'])).json).toMatchObject({ partialsRemoved: 1 });
      await expect(stat(path.join(a, stale))).rejects.toThrow();
      expect(await readText(a, fresh)).toBe('partial');
      expect(await readText(a, mine)).toBe('partial');
    },
    TIMEOUT,
  );

  it(
    'records local deletions on push and removes files deleted remotely on pull, keeping local edits',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      await writeText(a, 'Old/Props/old.txt', 'old');
      await writeText(a, 'keep.txt', 'keep');
      expectOk(await ada.run(a, ['push', '-m', 'two']));
      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));
      await writeText(b, 'keep.txt', 'edited by bo');

      await rm(path.join(a, 'Old'), { recursive: true });
      expect(expectOk(await ada.run(a, ['push', '-m', 'remove old', '--json'])).json).toMatchObject({ deleted: 1, commit: { fileCount: 1 } });
      // Pulled from inside Old/: the folders the file leaves empty go with it, as in Ada's workspace,
      // but not the one Bo stands in.
      expect(expectOk(await bo.run(path.join(b, 'Old'), ['pull', '--json'])).json).toMatchObject({ removed: 1, kept: ['keep.txt'] });
      await expect(stat(path.join(b, 'Old', 'Props'))).rejects.toThrow();
      expect((await stat(path.join(b, 'Old'))).isDirectory()).toBe(true);
      expect(await readText(b, 'keep.txt')).toBe('edited by bo');

      // Bo puts the file back (the same bytes, from a backup) and adds another where one was deleted: new files, not edits.
      await writeText(b, 'Old/Props/old.txt', 'old');
      const status = await bo.run(b, ['status', '--json']);
      expect(status.json.files).toEqual([
        expect.objectContaining({ path: 'Old/Props/old.txt', status: 'local_only' }),
        expect.objectContaining({ path: 'keep.txt', status: 'modified' }),
      ]);
      expect(expectOk(await bo.run(b, ['status'])).stdout).toContain('new (push uploads): 1\n  Old/Props/old.txt\n');
      expectOk(await bo.run(b, ['push', 'Old', '-m', 'old is back']));
      expectOk(await ada.run(a, ['pull']));
      expect(await readText(a, 'Old/Props/old.txt')).toBe('old');
    },
    TIMEOUT,
  );

  it(
    'finishes a push SIGKILLed half-way without uploading its confirmed files again, in one commit',
    async () => {
      const { ada, bo } = await team();
      const a = await newWorkspace(ada);
      const files = await writeRandomFiles(a, 'Props', 120, 40_000);
      const journal = path.join(a, '.lode/push-journal.json');
      const child = ada.spawn(a, ['push', '-m', 'props', '--batch-size', '10', '-j', '2']);
      const exited = collect(child);
      let journaled = 0;
      const deadline = Date.now() + 60_000;
      while (journaled === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        journaled = await readFile(journal, 'utf8').then(
          (text) => Object.keys(JSON.parse(text).confirmed).length,
          () => 0,
        );
      }
      child.kill('SIGKILL');
      await exited;
      expect(journaled).toBeGreaterThan(0);

      const resumed = expectOk(await ada.run(a, ['push', '-m', 'props', '--json']));
      const { reused, uploaded, deduplicated, commit, resumed: finished } = resumed.json;
      const committed = finished ?? commit;
      expect(committed).toMatchObject({ sequenceNum: 1, fileCount: files.length });
      if (!finished) {
        expect(reused).toBeGreaterThanOrEqual(journaled);
        // A batch confirmed just before the kill, not journaled yet, is found as stored content (dedup): no bytes move again.
        expect(reused + uploaded + deduplicated).toBe(files.length);
      }
      expect(await commitCount(ada, a)).toBe(1);
      const b = await newWorkspace(bo);
      expectOk(await bo.run(b, ['pull']));
      expectSameTree(a, b);
    },
    TIMEOUT,
  );

  /**
   * A workspace with three confirmed uploads and the journal a push leaves when killed once its
   * commit went through a draft (a push above 25,000 files: here drafts of 2 entries, so 2 parts).
   * `stage` stages the draft's parts and commits it, or the first part only; the answer never comes.
   */
  const killedDuringDraft = async (stage: 'committed' | 'first part') => {
    const owner = await stack.seed.project();
    const ada = await CliUser.create(stack.baseUrl, owner);
    const a = await newWorkspace(ada);
    const names = await writeRandomFiles(a, 'Import', 3, 5_000);
    const client = new LodeClient({ url: stack.baseUrl, key: owner.key, deviceId: owner.deviceId, projectId: owner.projectId });
    const local = await Promise.all(names.map(async (name) => ({ path: name, localPath: path.join(a, name), digest: await hashFile(path.join(a, name)) })));
    const uploads: UploadedFile[] = (await uploadFiles(client, local)).done;
    const request: CommitRequest = {
      message: 'import',
      branch: 'main',
      fileVersions: uploads.map((u) => ({ fileId: u.fileId, action: 'modify', version: u.version })),
    };
    const idempotencyKey = randomUUID();
    let draftId = '';
    let landed = null;
    if (stage === 'committed') {
      landed = await commitFiles(client, request, { idempotencyKey, maxEntries: 2, onDraft: (id) => void (draftId = id) });
    } else {
      draftId = (await client.createDraft(request.message, request.branch)).id;
      await client.addDraftFiles(draftId, request.fileVersions.slice(0, 2));
    }
    await writeFile(
      path.join(a, '.lode/push-journal.json'),
      JSON.stringify({ idempotencyKey, confirmed: {}, commit: { request, uploads, deletes: [], draftId } }),
    );
    return { ada, a, landed };
  };

  it(
    "answers a resumed push with its draft's commit, which landed before the push was killed, committing once",
    async () => {
      const { ada, a, landed } = await killedDuringDraft('committed');
      const resumed = expectOk(await ada.run(a, ['push', '-m', 'import', '--json']));
      expect(resumed.json).toMatchObject({ resumed: { id: landed?.id, sequenceNum: 1, fileCount: 3 }, commit: null });
      expect(await commitCount(ada, a)).toBe(1);
      expect(expectOk(await ada.run(a, ['status', '--json'])).json.counts).toMatchObject({ up_to_date: 3, modified: 0, local_only: 0 });
    },
    TIMEOUT,
  );

  it(
    'finishes a draft a push was killed while staging: every part staged again, committed once',
    async () => {
      const { ada, a } = await killedDuringDraft('first part');
      const resumed = expectOk(await ada.run(a, ['push', '-m', 'import', '--json']));
      expect(resumed.json).toMatchObject({ resumed: { sequenceNum: 1, fileCount: 3 }, commit: null });
      expect(await commitCount(ada, a)).toBe(1);
    },
    TIMEOUT,
  );

  clientSide(
    'downloads the version --version names, byte for byte (the option is the command’s, not the CLI’s version)',
    async () => {
      const { ada } = await team();
      const a = await newWorkspace(ada);
      const versions = [randomBytes(50_000), randomBytes(50_000)];
      for (const [i, bytes] of versions.entries()) {
        await writeFile(path.join(a, 'forest.umap'), bytes);
        expectOk(await ada.run(a, ['push', '-m', `forest v${i + 1}`]));
      }
      const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
      const dest = path.join(a, 'forest-v1.umap');
      const downloaded = expectOk(await ada.run(a, ['download', 'forest.umap', '--version', '1', '-o', dest, '--json']));
      expect(downloaded.json).toMatchObject({ path: 'forest.umap', version: 1, sha256: sha256(versions[0]) });
      expect(sha256(await readFile(dest))).toBe(sha256(versions[0]));
      const missing = await ada.run(a, ['download', 'forest.umap', '--version', '9']);
      expect([missing.code, missing.stderr]).toEqual([
        2,
        'error: forest.umap has no version 9 on main. Its versions on main: v2, v1; `lode history forest.umap` shows them with dates and authors.\n',
      ]);
      expect((await ada.run(a, ['download', 'forest.umap', '--version', '9', '--json'])).json.error).toMatchObject({
        code: 'version_not_found',
        version: 9,
        versions: [2, 1],
      });
      expect(expectOk(await ada.run(a, ['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
      // To stdout, verified first; nothing else on it.
      await writeText(a, 'notes.txt', 'first notes');
      expectOk(await ada.run(a, ['push', '-m', 'notes']));
      await writeText(a, 'notes.txt', 'second notes');
      expectOk(await ada.run(a, ['push', '-m', 'notes 2']));
      const piped = expectOk(await ada.run(a, ['download', 'notes.txt', '--version', '1', '-o', '-']));
      expect([piped.stdout, piped.stderr]).toEqual(['first notes', expect.stringMatching(/^Wrote notes\.txt v1 .+ to stdout\n$/)]);
      expect((await ada.run(a, ['download', 'notes.txt', '--version', '1', '-o', '-', '--json'])).code).toBe(2);
    },
    TIMEOUT,
  );

  clientSide(
    'refuses a bad option value with exit 2, naming the option (as JSON with --json), before any call',
    async () => {
      const { ada } = await team();
      const a = await newWorkspace(ada);
      const bad = [
        ['log', '-n', 'abc'],
        ['history', 'a.bin', '-n', '201'],
        ['push', '-m', 'x', '-j', 'abc'],
        ['push', '-m', ' '],
        ['push', '-m', 'x', '--batch-size', '0'],
        ['pull', '-j', '1e3'],
        ['download', 'a.bin', '--version', '0'],
        ['restore', 'a.bin', '--to', '1.5'],
        ['branch', 'merge', 'b', '--take', 'mine'],
      ];
      for (const args of bad) {
        const human = await ada.run(a, args);
        expect(human.code, args.join(' ')).toBe(2);
        expect(human.stderr).toMatch(/^error: option '.+' argument '.+' is invalid/);
        expect(human.stderr).not.toMatch(/\n\s+at /);
      }
      for (const args of [...bad.slice(0, 2), ['push'], ['branch']]) {
        const json = await ada.run(a, [...args, '--json']);
        expect(json.code, args.join(' ')).toBe(2);
        expect(json.json).toEqual({ error: { code: 'usage', message: expect.stringMatching(/^(option|required option|No command given)/) } });
        expect(json.stderr).toBe('');
      }
      expect(await commitCount(ada, a)).toBe(0);
    },
    TIMEOUT,
  );

  clientSide(
    'ends with its own exit code and no stack trace when the reader of its output goes away (`lode status --json --all | head -c 100`)',
    async () => {
      const { ada } = await team();
      const a = await newWorkspace(ada);
      // Far more than a pipe holds (64 KiB), so the CLI is still writing when the reader closes.
      await writeRandomFiles(a, 'Props', 1000, 1);
      const child = ada.spawn(a, ['status', '--json', '--all']);
      child.stdout?.once('data', () => child.stdout?.destroy());
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise((resolve) => child.once('close', resolve));
      expect(stderr).toBe('');
      expect(code).toBe(0);
    },
    TIMEOUT,
  );

  clientSide(
    'with the file monitor on, answers as the walk does; without Watchman it says so and walks',
    async () => {
      const { ada } = await team();
      const a = await newWorkspace(ada);
      await writeRandomFiles(a, 'Props', 20, 100);
      expectOk(await ada.run(a, ['push', '-m', 'first']));
      expect(expectOk(await ada.run(a, ['monitor', '--json'])).json).toEqual({ monitor: 'off', watcher: 'watchman', listed: false });
      expect(expectOk(await ada.run(a, ['monitor', 'on', '--json'])).json).toEqual({ monitor: 'on', watcher: 'watchman', listed: false });
      try {
        // The first status walks and records; the next ones start from the record.
        expectOk(await ada.run(a, ['status']));
        expect(expectOk(await ada.run(a, ['monitor', '--json'])).json).toMatchObject({ listed: true });
        await writeText(a, 'Props/new.bin', 'new');
        await writeText(a, 'Props/f00003.bin', 'edited');
        await rm(path.join(a, 'Props', 'f00007.bin'));
        const monitored = expectOk(await ada.run(a, ['status', '--json', '--all'])).json;
        expect(monitored).toMatchObject({ listedBy: 'monitor', counts: { modified: 1, local_only: 1, deleted_local: 1, up_to_date: 18 } });
        const walked = expectOk(await ada.run(a, ['status', '--json', '--all', '--full'])).json;
        expect(walked).toEqual({ ...monitored, listedBy: 'walk' });

        // No Watchman on the PATH: the status reaches it on the socket lode monitor on recorded. The
        // first records a listing (the --full one left none), the next starts from it.
        const searched = ada.env.PATH;
        ada.env.PATH = path.dirname(process.execPath);
        try {
          expect(expectOk(await ada.run(a, ['status'])).stderr).toBe('');
          expect(expectOk(await ada.run(a, ['status', '--json', '--all'])).json).toEqual(monitored);

          // Nor that socket: the record stays, and the status walks and says why.
          const recordFile = path.join(a, '.lode', 'monitor.json');
          const record = JSON.parse(await readFile(recordFile, 'utf8')) as { socket?: string };
          expect(record.socket).toBeDefined();
          await writeFile(recordFile, JSON.stringify({ ...record, socket: path.join(await emptyDir(), 'watchman.sock') }));
          expect(expectOk(await ada.run(a, ['status', '--json', '--all'])).json).toEqual(walked);
          expect(expectOk(await ada.run(a, ['status'])).stderr).toContain('The file monitor did not answer');
          const refused = await ada.run(a, ['monitor', 'on', '--json']);
          expect(refused.code).toBe(1);
          expect(refused.json.error).toMatchObject({ code: 'monitor_unavailable' });
        } finally {
          ada.env.PATH = searched;
        }
      } finally {
        expect(expectOk(await ada.run(a, ['monitor', 'off', '--json'])).json).toEqual({ monitor: 'off', watcher: 'watchman', listed: false });
      }
    },
    TIMEOUT,
  );

  clientSide(
    'explains usage errors with exit 2 and API errors with exit 1, as JSON with --json',
    async () => {
      const { ada } = await team();
      const a = await newWorkspace(ada);
      expect((await ada.run(a, ['push'])).code).toBe(2);
      expect((await ada.run(a, ['frobnicate'])).code).toBe(2);
      const bad = new CliUser(stack.baseUrl, { ...(await stack.seed.project()), key: `lode_${'x'.repeat(40)}` }, path.join(a, 'cfg'));
      const refused = await bad.run(a, ['log', '--json']);
      expect(refused.code).toBe(1);
      expect(refused.json.error).toMatchObject({ code: 'invalid_key', status: 401 });
      expect(refused.json.error.message).toContain('lode login');
    },
    TIMEOUT,
  );
});
