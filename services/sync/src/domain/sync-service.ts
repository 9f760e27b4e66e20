import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { commit, pathKey, type Actor, type ReplyOf, type sync } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Database, Queryable } from '@lode/db';
import type { BranchesRepository } from '../repo/branches-repo.ts';
import type { ProgressRepository } from '../repo/progress-repo.ts';
import type { SessionsRepository } from '../repo/sessions-repo.ts';
import type { TreeRepository } from '../repo/tree-repo.ts';
import type { AppliedSignal } from './applied-signal.ts';
import { decideStatus, syncRow } from './sync-status.ts';

/** Longest a waiting sync goes without looking at the progress again (another replica may apply). */
const CATCH_UP_POLL_MS = 25;

export interface SyncServiceDeps {
  db: Database;
  bus: Bus;
  progress: ProgressRepository;
  branches: BranchesRepository;
  tree: TreeRepository;
  sessions: SessionsRepository;
  applied: AppliedSignal;
  /** How long a sync waits for the read model to apply the project's latest commit. */
  catchUpMs: number;
  /** Called when a session's listing is complete, to remove it in the background. */
  onSessionFinished: () => void;
}

/** Spec 4.2: compares a client's files with the committed state of a branch (docs/api.md, Sync). */
export class SyncService {
  readonly #deps: SyncServiceDeps;

  constructor(deps: SyncServiceDeps) {
    this.#deps = deps;
  }

  async compare(actor: Actor, body: sync.SyncBody): Promise<ReplyOf<typeof sync.compare>> {
    const { db, sessions } = this.#deps;
    const { projectId } = actor;
    // A single request listing remote-only files is a session of one batch: the listing has one way
    // to leave out what was listed.
    const session = body.session ?? (body.includeRemoteOnly ? { id: randomUUID(), batch: 0 } : undefined);
    if (body.includeRemoteOnly && body.session) {
      const missing = await sessions.missingBatches(db, projectId, body.session.id, body.session.batch);
      if (missing.length > 0) throw errors.syncSessionIncomplete(missing);
    }
    await this.#catchUp(projectId);
    const files = body.files.map((file) => ({ ...file, key: pathKey(file.path) }));
    const [answer] = await Promise.all([
      db.transaction((tx) => this.#answer(tx, projectId, body.branch, files)),
      session && sessions.record(db, projectId, session, files.map((f) => f.key)),
    ]);
    return { ...answer, remoteOnlySession: body.includeRemoteOnly && session ? session.id : null };
  }

  async listRemoteOnly(actor: Actor, branch: string | undefined, sessionId: string, after: string, limit: number): Promise<ReplyOf<typeof sync.listRemoteOnly>> {
    const { db, branches, tree, sessions } = this.#deps;
    const lineage = await branches.lineage(db, actor.projectId, branch ?? commit.MAIN_BRANCH);
    const page = await tree.listUnseen(db, actor.projectId, lineage.branch, sessionId, after, limit);
    const files = page.map((file) => syncRow(file.path, 'missing', file));
    if (page.length === limit) return { files, after: page[page.length - 1].pathKey };
    await sessions.finish(db, actor.projectId, sessionId);
    this.#deps.onSessionFinished();
    return { files, after: null };
  }

  /**
   * Read your writes: the commit service knows the project's latest sequence number; the answer
   * waits (bounded) until the read model has applied it, and is a 503 rather than stale data.
   */
  async #catchUp(projectId: string): Promise<void> {
    const { bus, db, progress, applied, catchUpMs } = this.#deps;
    const { sequenceNum: latest } = await bus.call(commit.latestSequence, { projectId });
    const deadline = performance.now() + catchUpMs;
    let appliedSeq = await progress.appliedSeq(db, projectId);
    while (appliedSeq < latest) {
      const left = deadline - performance.now();
      if (left <= 0) throw errors.syncCatchingUp(latest, appliedSeq);
      await applied.next(Math.min(left, CATCH_UP_POLL_MS));
      appliedSeq = await progress.appliedSeq(db, projectId);
    }
  }

  /**
   * One snapshot for the progress and the batch, so latestCommitSeq names exactly the state the
   * rows describe even while later commits are being applied.
   */
  async #answer(tx: Queryable, projectId: string, branch: string | undefined, files: readonly (sync.LocalFile & { key: string })[]) {
    const { progress, branches, tree } = this.#deps;
    // JIT compiling these index-probe plans costs more than it saves (about a quarter of a batch).
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL jit = off');
    const latestCommitSeq = await progress.appliedSeq(tx, projectId);
    const lineage = await branches.lineage(tx, projectId, branch ?? commit.MAIN_BRANCH);
    const found = await tree.compare(tx, projectId, lineage, files);
    const rows = files.map((local, i) => {
      const { remote, contentKnown } = found[i];
      return syncRow(local.path, decideStatus({ local, remote, contentKnown }), remote);
    });
    return { files: rows, latestCommitSeq };
  }
}
