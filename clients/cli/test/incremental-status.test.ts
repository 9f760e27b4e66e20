import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LodeClient, type SyncRequest } from '@lode/sdk';
import { startTestStack, type TestStack } from '@lode/system/testing';
import type { SeededProject } from '@lode/testkit';
import type { Context } from '../src/context.ts';
import type { RemoteScope } from '../src/index-format.ts';
import { Output } from '../src/output.ts';
import { pull } from '../src/pull.ts';
import { push } from '../src/push.ts';
import { workspaceStatus, type WorkspaceStatus } from '../src/status.ts';
import { STATE_DIR, Workspace } from '../src/workspace.ts';
import { emptyDir, unwatch } from './workspace-fixtures.ts';

const PATHS = ['a.bin', 'Dir/b.bin', 'Dir/c.bin', 'e.bin'];
/** Few contents, so a file often gets back content it had before (outdated, deleted_remote, conflict). */
const CONTENTS = ['one', 'two', 'three'];

/** A client whose sync requests are recorded, to tell a full comparison from an incremental one. */
class WatchedClient extends LodeClient {
  readonly syncs: SyncRequest[] = [];

  override sync(request: SyncRequest, options: { signal?: AbortSignal } = {}) {
    this.syncs.push(request);
    return super.sync(request, options);
  }
}

interface Member {
  dir: string;
  ctx: Context & { client: WatchedClient };
}

/** The workspace's records (workspace-index.ts): the index and the log of changes since. */
const recordFiles = (dir: string) => ['index', 'index.log'].map((name) => path.join(dir, STATE_DIR, name));
const readRecords = (dir: string) => Promise.all(recordFiles(dir).map((file) => readFile(file).catch(() => null)));
const writeRecords = (dir: string, contents: (Buffer | null)[]) =>
  Promise.all(recordFiles(dir).map((file, i) => (contents[i] === null ? rm(file, { force: true }) : writeFile(file, contents[i]))));

/** A table's contents as plain values. */
const plain = <V>(table: { keys(): string[]; get(key: string): V | undefined }) =>
  Object.fromEntries(
    table
      .keys()
      .sort()
      .map((k) => [k, table.get(k)]),
  );

/** What a workspace records as synced, as plain values. */
const syncedState = (workspace: Workspace) => ({ branch: workspace.state.branch, files: plain(workspace.state.files) });

/** A status with the record of the tree it left as plain values, how it listed the workspace aside. */
const plainStatus = (status: WorkspaceStatus) => ({ ...status, listedBy: undefined, tree: status.tree && { ...status.tree, files: plain(status.tree.files) } });

describe('lode status from the record of the branch (incremental)', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
  });
  afterAll(async () => stack?.stop());

  const member = async (p: SeededProject): Promise<Member> => {
    const dir = await emptyDir();
    await Workspace.create(dir, 'main');
    const client = new WatchedClient({ url: stack.baseUrl, key: p.key, deviceId: p.deviceId, projectId: p.projectId });
    return { dir, ctx: { client, out: new Output(true), signal: new AbortController().signal } };
  };

  const team = async () => {
    const owner = await stack.seed.project();
    const teammate = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const members = { ada: await member(owner), bo: await member(teammate) };
    // A branch the teammate may push to: main's files it does not change stay main's there.
    await members.bo.ctx.client.transport.call('POST', `/api/v1/projects/${owner.projectId}/branches`, { name: 'side' });
    return members;
  };

  /** Runs a push or pull that may be refused (a conflict, nothing to do): the state it leaves is what matters. */
  const attempt = async (work: () => Promise<unknown>) => {
    await work().catch((error: unknown) => {
      if (!(error instanceof Error) || !('code' in error)) throw error;
    });
  };

  /**
   * Status from the record, then the full comparison of the same workspace (the record put back
   * after it, so it keeps evolving from changes only): the same rows, statuses and synced record.
   * Answers whether the incremental one compared the whole workspace, and how it listed it.
   */
  const expectSameAsFull = async ({ dir, ctx }: Member): Promise<{ full: boolean; listedBy: WorkspaceStatus['listedBy'] }> => {
    const before = ctx.client.syncs.length;
    const incremental = await Workspace.find(dir);
    const fromRecord = await workspaceStatus(ctx.client, incremental, incremental.state.branch, ctx.signal);
    const full = ctx.client.syncs.slice(before).some((request) => request.includeRemoteOnly);
    const records = await readRecords(dir);
    const whole = await Workspace.find(dir);
    const fromAll = await workspaceStatus(ctx.client, whole, whole.state.branch, ctx.signal, { full: true });
    await writeRecords(dir, records);
    expect(plainStatus(fromRecord)).toEqual(plainStatus(fromAll));
    expect(syncedState(incremental)).toEqual(syncedState(whole));
    await incremental.save();
    return { full, listedBy: fromRecord.listedBy };
  };

  const write = async (dir: string, file: string, content: string) => {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  };

  const op = fc.oneof(
    fc.record({
      kind: fc.constant('edit' as const),
      who: fc.constantFrom('ada', 'bo'),
      file: fc.constantFrom(...PATHS),
      content: fc.constantFrom(...CONTENTS),
    }),
    fc.record({ kind: fc.constant('delete' as const), who: fc.constantFrom('ada', 'bo'), file: fc.constantFrom(...PATHS) }),
    fc.record({ kind: fc.constant('push' as const), who: fc.constantFrom('ada', 'bo'), branch: fc.constantFrom('main', 'main', 'side') }),
    fc.record({ kind: fc.constant('pull' as const), who: fc.constantFrom('ada', 'bo') }),
    fc.record({ kind: fc.constant('restore' as const), file: fc.constantFrom(...PATHS) }),
    // Her full comparison, which writes her index anew: the statuses after it find files quiet.
    fc.record({ kind: fc.constant('full' as const) }),
  );
  type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

  const run = async (members: { ada: Member; bo: Member }, step: Op) => {
    if (step.kind === 'restore') {
      // A teammate brings a file of main back to its first version: a commit of old content.
      const synced = (await Workspace.find(members.bo.dir)).state.files.get(step.file);
      if (synced && synced.version > 1) await attempt(() => members.bo.ctx.client.restore([{ fileId: synced.fileId, toVersion: 1 }]));
      return;
    }
    if (step.kind === 'full') {
      const workspace = await Workspace.find(members.ada.dir);
      await workspaceStatus(members.ada.ctx.client, workspace, workspace.state.branch, undefined, { full: true });
      await workspace.save();
      return;
    }
    const { dir, ctx } = members[step.who];
    if (step.kind === 'edit') await write(dir, step.file, step.content);
    if (step.kind === 'delete') await rm(path.join(dir, step.file), { force: true });
    if (step.kind === 'push') await attempt(async () => push(ctx, await Workspace.find(dir), { message: 'm', branch: step.branch, scopes: [] }));
    if (step.kind === 'pull') await attempt(async () => pull(ctx, await Workspace.find(dir), { branch: 'main', scopes: [] }));
  };

  /** Runs of edits, pushes and pulls on either side, ada's status compared with the full comparison after each. */
  const everyStatusAsFull = (monitor: boolean) =>
    fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 8 }), async (steps) => {
        const members = await team();
        if (monitor) await (await Workspace.find(members.ada.dir)).monitorOn();
        await write(members.ada.dir, 'a.bin', 'one');
        await attempt(async () => push(members.ada.ctx, await Workspace.find(members.ada.dir), { message: 'first', scopes: [] }));
        // With the monitor on, every status after the push's lists her workspace from its record.
        const listedBy = monitor ? 'monitor' : 'walk';
        expect(await expectSameAsFull(members.ada)).toEqual({ full: false, listedBy });
        for (const step of steps) {
          const followed = (await Workspace.find(members.ada.dir)).state.branch;
          await run(members, step);
          const moved = (await Workspace.find(members.ada.dir)).state.branch !== followed;
          // Her record is replaced by a full comparison only when a push or pull moved her to another branch.
          const status = await expectSameAsFull(members.ada);
          // A full comparison walks and records no listing: the status after it walks once.
          if (step.kind !== 'full') expect(status.listedBy).toBe(listedBy);
          if (!moved) expect(status.full).toBe(false);
        }
        if (monitor) await unwatch([members.ada.dir]);
      }),
      // Seeded, as the suite's other properties are, so that a run is repeatable; FC_SEED and FC_RUNS hunt further.
      { numRuns: Number(process.env.FC_RUNS ?? 10), seed: Number(process.env.FC_SEED ?? 20_261_129), endOnFailure: true },
    );

  it('answers exactly what the full comparison answers, whatever happened on either side', () => everyStatusAsFull(false), 600_000);

  it('answers so with the file monitor on too, which lists the workspace from its record', () => everyStatusAsFull(true), 600_000);

  it('reads a quiet file whose tip a teammate moved since as compared, and counts it so', async () => {
    const { ada, bo } = await team();
    await (await Workspace.find(ada.dir)).monitorOn();
    for (const file of ['a.bin', 'b.bin', 'c.bin']) await write(ada.dir, file, `ada's ${file}`);
    await push(ada.ctx, await Workspace.find(ada.dir), { message: 'first', scopes: [] });
    // A full comparison writes the index anew; the status after it reads every file as unchanged at
    // the tip, compares none one by one, and says so in the monitor's record: her files are quiet.
    for (const full of [true, false]) {
      const workspace = await Workspace.find(ada.dir);
      await workspaceStatus(ada.ctx.client, workspace, 'main', undefined, { full });
      await workspace.save();
    }
    const record = JSON.parse(await readFile(path.join(ada.dir, STATE_DIR, 'monitor.json'), 'utf8')) as { listing: { compared: { paths: string[] } } };
    expect(record.listing.compared.paths).toEqual([]);
    await pull(bo.ctx, await Workspace.find(bo.dir), { branch: 'main', scopes: [] });
    await write(bo.dir, 'b.bin', "bo's");
    await push(bo.ctx, await Workspace.find(bo.dir), { message: 'bo', scopes: [] });
    // Caught up with in her status: b.bin is compared again, no longer counted as up to date.
    expect(await expectSameAsFull(ada)).toEqual({ full: false, listedBy: 'monitor' });
    const status = await workspaceStatus(ada.ctx.client, await Workspace.find(ada.dir), 'main');
    expect([status.upToDate, status.changes.map((e) => [e.path, e.status])]).toEqual([2, [['b.bin', 'outdated']]]);
    await unwatch([ada.dir]);
  });

  it('compares in full without a usable record, and when the branch was created again', async () => {
    const { ada, bo } = await team();
    await write(ada.dir, 'a.bin', 'one');
    await push(ada.ctx, await Workspace.find(ada.dir), { message: 'first', scopes: [] });
    // The push's status had no record and made one.
    expect((await Workspace.find(ada.dir)).index.scope).toMatchObject({ branch: 'main', generation: 'main' });
    expect(await expectSameAsFull(ada)).toMatchObject({ full: false });

    // An index of a format this code does not know is not read: the records are made again.
    const [index] = await readRecords(ada.dir);
    await writeFile(recordFiles(ada.dir)[0], Buffer.from((index as Buffer).toString('latin1').replace(/^lode-index\t2\t/, 'lode-index\t99\t'), 'latin1'));
    expect(await expectSameAsFull(ada)).toMatchObject({ full: true });
    expect(await expectSameAsFull(ada)).toMatchObject({ full: false });

    // A record of another branch is no record of this one.
    const moved = await Workspace.find(ada.dir);
    moved.index.setScope({ ...(moved.index.scope as RemoteScope), branch: 'other' });
    await moved.save();
    expect(await expectSameAsFull(ada)).toMatchObject({ full: true });

    // Bo works on a branch, which is deleted and created again from main: his record of the old
    // one is answered changes_expired, and the full comparison says what the new one holds.
    await write(bo.dir, 'b.bin', 'bo');
    await push(bo.ctx, await Workspace.find(bo.dir), { message: 'side', branch: 'side', scopes: [] });
    // The push moved his workspace to the branch: its record is made by one full comparison.
    expect(await expectSameAsFull(bo)).toMatchObject({ full: true });
    expect(await expectSameAsFull(bo)).toMatchObject({ full: false });
    const base = `/api/v1/projects/${await bo.ctx.client.projectId()}/branches`;
    await bo.ctx.client.transport.call('DELETE', `${base}/side`);
    await push(ada.ctx, await Workspace.find(ada.dir), { message: 'after', scopes: [] }).catch(() => undefined);
    await bo.ctx.client.transport.call('POST', base, { name: 'side' });
    const recreated = await expectSameAsFull(bo);
    expect(recreated).toMatchObject({ full: true });
    const status = await workspaceStatus(bo.ctx.client, await Workspace.find(bo.dir), 'side');
    expect(status.entries.map((e) => [e.path, e.status])).toEqual([
      ['a.bin', 'missing'],
      // Synced from the old branch and unchanged since: the new one does not hold it, pull removes it.
      ['b.bin', 'deleted_remote'],
    ]);
  }, 300_000);

  it('pushes a few edits with as many requests whatever the size of the workspace', async () => {
    /** The requests one push of three edits makes, and how many files its sync requests list. */
    const pushOfThreeEdits = async (files: number) => {
      const { ada } = await team();
      for (let i = 0; i < files; i++) await write(ada.dir, `Dir${i % 4}/f${i}.txt`, `file ${i}`);
      await push(ada.ctx, await Workspace.find(ada.dir), { message: 'all', scopes: [] });
      await workspaceStatus(ada.ctx.client, await Workspace.find(ada.dir), 'main');
      for (let i = 0; i < 3; i++) await write(ada.dir, `Dir${i % 4}/f${i}.txt`, `edited ${i}`);
      const requests: string[] = [];
      const syncsBefore = ada.ctx.client.syncs.length;
      // Every call of the API goes through the transport's request.
      const transport = ada.ctx.client.transport;
      const request = transport.request.bind(transport);
      transport.request = (method, path, ...rest) => {
        requests.push(`${method} ${path.replace(/[0-9a-f-]{36}/g, ':id')}`);
        return request(method, path, ...rest);
      };
      const report = await push(ada.ctx, await Workspace.find(ada.dir), { message: 'edits', scopes: [] });
      expect(report.uploaded).toBe(3);
      const listed = ada.ctx.client.syncs.slice(syncsBefore).reduce((sum, request) => sum + request.files.length, 0);
      return { requests: requests.sort(), listed };
    };
    const small = await pushOfThreeEdits(10);
    const large = await pushOfThreeEdits(200);
    expect(small.requests).toEqual(expect.arrayContaining(['GET /api/v1/projects/:id/changes', 'POST /api/v1/projects/:id/sync']));
    expect(large.requests).toEqual(small.requests);
    // Only the edited files go to POST /sync: the rest are up_to_date from the record.
    expect(large.listed).toBe(3);
  }, 300_000);
});
