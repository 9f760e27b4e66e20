import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { commit, type Actor, type ParsedRequestOf, type ReplyOf, type sync } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Database, Queryable } from '@lode/db';
import type { BranchesRepository } from '../repo/branches-repo.ts';
import type { ProgressRepository } from '../repo/progress-repo.ts';
import type { SessionsRepository } from '../repo/sessions-repo.ts';
import type { TreeRepository } from '../repo/tree-repo.ts';
import type { AppliedSignal } from './applied-signal.ts';
import { appendRow, decideStatus, emptyColumns } from './sync-status.ts';

/** What the commit service has made of a project so far: the read model must have applied it all. */
type Latest = ReplyOf<typeof commit.latestSequence>;

/** Longest a waiting sync goes without looking at the progress again (another replica may apply). */
const CATCH_UP_POLL_MS = 25;
/** A session idle this long lost its client: its listed paths are removed. */
const SESSION_IDLE_MS = 3_600_000;

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

/** Compares a client's files with the committed state of a branch (docs/api.md, Sync). */
export class SyncService {
  readonly #deps: SyncServiceDeps;

  constructor(deps: SyncServiceDeps) {
    this.#deps = deps;
  }

  async compare(request: ParsedRequestOf<typeof sync.compare>): Promise<ReplyOf<typeof sync.compare>> {
    const { db, bus, sessions } = this.#deps;
    const { actor, files, includeRemoteOnly, branch } = request;
    const { projectId } = actor;
    // A single request listing remote-only files is a session of one batch: the listing has one way
    // to leave out what was listed.
    const session = request.session ?? (includeRemoteOnly ? { id: randomUUID(), batch: 0 } : undefined);
    if (includeRemoteOnly && request.session) {
      const missing = await sessions.missingBatches(db, projectId, request.session.id, request.session.batch);
      if (missing.length > 0) throw errors.syncSessionIncomplete(missing);
    }
    const latest = await bus.call(commit.latestSequence, { projectId });
    const [answer] = await Promise.all([
      this.#answerOnceApplied(projectId, latest, branch, files),
      session && sessions.record(db, projectId, session, files.keys),
    ]);
    return { ...answer, remoteOnlySession: includeRemoteOnly && session ? session.id : null };
  }

  async listRemoteOnly(
    actor: Actor,
    branch: string | undefined,
    sessionId: string,
    after: string,
    limit: number,
  ): Promise<ReplyOf<typeof sync.listRemoteOnly>> {
    const { db, branches, tree, sessions } = this.#deps;
    const page = await db.transaction(async (tx) => {
      const lineage = await branches.lineage(tx, actor.projectId, branch ?? commit.MAIN_BRANCH);
      return tree.listUnseen(tx, actor.projectId, lineage.branch, sessionId, after, limit);
    });
    const rows = emptyColumns();
    for (const file of page) appendRow(rows, 'missing', file);
    const paths = page.map((file) => file.path);
    if (page.length === limit) return { paths, rows, after: page[page.length - 1].pathKey };
    await sessions.finish(db, actor.projectId, sessionId);
    this.#deps.onSessionFinished();
    return { paths, rows, after: null };
  }

  /** Removes finished sessions and those whose client stopped before its last request. */
  async purgeSessions(): Promise<void> {
    await this.#deps.sessions.purge(this.#deps.db, SESSION_IDLE_MS);
  }

  /**
   * Read your writes: the commit service named the project's latest sequence number and its count of
   * branch changes, and the batch is answered from a snapshot in which the read model has applied
   * both, waiting (bounded) for the read model to get there; a 503 rather than stale data. The 503
   * says how long the read model has gone without advancing for the project: the commit service
   * could tell when the oldest missing commit was made only through another request, while the
   * read model's own progress row already says when it last moved.
   */
  async #answerOnceApplied(projectId: string, latest: Latest, branch: string | undefined, files: sync.BatchFiles) {
    const { db, applied, catchUpMs } = this.#deps;
    const deadline = performance.now() + catchUpMs;
    for (;;) {
      const { rows, latestCommitSeq, secondsSinceAdvanced } = await db.transaction((tx) => this.#answer(tx, projectId, latest, branch, files));
      if (rows) return { rows, latestCommitSeq };
      const left = deadline - performance.now();
      if (left <= 0) throw errors.syncCatchingUp(latest.sequenceNum, latestCommitSeq, secondsSinceAdvanced);
      await applied.next(Math.min(left, CATCH_UP_POLL_MS));
    }
  }

  /**
   * One snapshot for the progress and the batch, so latestCommitSeq names exactly the state the
   * rows describe even while later commits are being applied. No rows while it is before `latest`.
   */
  async #answer(tx: Queryable, projectId: string, latest: Latest, branch: string | undefined, files: sync.BatchFiles) {
    const { progress, branches, tree } = this.#deps;
    // JIT compiling these index-probe plans costs more than it saves: they are cheap index probes.
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL jit = off');
    const { appliedSeq: latestCommitSeq, appliedChanges, secondsSinceAdvanced } = await progress.applied(tx, projectId);
    if (latestCommitSeq < latest.sequenceNum || appliedChanges < latest.branchChanges) return { rows: undefined, latestCommitSeq, secondsSinceAdvanced };
    const lineage = await branches.lineage(tx, projectId, branch ?? commit.MAIN_BRANCH);
    const found = await tree.compare(tx, projectId, lineage, files);
    const rows = emptyColumns();
    found.forEach(({ remote, contentKnown }, i) => {
      const baseVersion = files.baseVersions[i] ?? undefined;
      appendRow(rows, decideStatus({ local: { sha256: files.sha256s[i], baseVersion }, remote, contentKnown }), remote);
    });
    return { rows, latestCommitSeq };
  }
}
