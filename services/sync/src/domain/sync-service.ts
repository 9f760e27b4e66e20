import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { commit, type Actor, type ParsedRequestOf, type ReplyOf, type sync } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { CursorCodec, Database, Queryable } from '@lode/db';
import type { BranchesRepository } from '../repo/branches-repo.ts';
import type { AppliedProgress, ProgressRepository } from '../repo/progress-repo.ts';
import type { SessionsRepository } from '../repo/sessions-repo.ts';
import type { ChangePosition, ListedFile, TreeRepository } from '../repo/tree-repo.ts';
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
  /** Signs the cursors of GET /changes. */
  cursors: CursorCodec;
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

  /**
   * The branch's files changed after `since`, once the read model holds the project's latest commit
   * (read your writes, as compare). changes_expired where the answer would be wrong: `since` beyond
   * what the read model has applied (another server's, or a read model rebuilt behind it), or a
   * generation other than the branch's (the name deleted and created again since).
   */
  async changes(request: ParsedRequestOf<typeof sync.changes>): Promise<ReplyOf<typeof sync.changes>> {
    const { actor, since, generation, limit } = request;
    const { projectId } = actor;
    const name = request.branch ?? commit.MAIN_BRANCH;
    const cursor = request.cursor === undefined ? undefined : this.#decodeChangesCursor(request.cursor, projectId, name, since);
    const latest = await this.#deps.bus.call(commit.latestSequence, { projectId });
    const { page, latestCommitSeq, current } = await this.#onceApplied(projectId, latest, async (tx, latestCommitSeq) => {
      const current = await this.#deps.branches.incarnation(tx, projectId, name);
      // A cursor names the generation its first page listed: later pages must not read a branch made again meanwhile.
      for (const asked of [generation, cursor?.generation])
        if (asked !== undefined && asked !== current.generation) throw errors.changesExpired('the branch was deleted and created again');
      if (since > latestCommitSeq) throw errors.changesExpired(`commit ${since} is beyond the server's latest, ${latestCommitSeq}`);
      return { page: await this.#deps.tree.listChanged(tx, projectId, current.branch, since, cursor?.after, limit + 1), latestCommitSeq, current };
    });
    const more = page.length > limit;
    const rows = more ? page.slice(0, limit) : page;
    const last = rows.at(-1);
    return {
      data: rows.map(changeRow),
      latestCommitSeq,
      generation: current.generation,
      nextCursor: more && last ? this.#deps.cursors.encode(['changes', projectId, name, since, current.generation, last.commitSeq, last.pathKey]) : null,
    };
  }

  /**
   * A cursor is bound to its project, branch and `since`, so it cannot page through another listing
   * (400), and carries the branch's generation, checked against the branch's as each page is read.
   */
  #decodeChangesCursor(cursor: string, projectId: string, name: string, since: number): { generation: string; after: ChangePosition } {
    const [kind, project, branch, from, generation, commitSeq, pathKey, ...rest] = this.#deps.cursors.decode(cursor);
    const fits = kind === 'changes' && project === projectId && branch === name && from === since && rest.length === 0;
    if (!fits || typeof generation !== 'string' || typeof commitSeq !== 'number' || typeof pathKey !== 'string') throw errors.validation('Invalid cursor');
    return { generation, after: { commitSeq, pathKey } };
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
    return this.#onceApplied(projectId, latest, async (tx, latestCommitSeq) => ({ rows: await this.#answer(tx, projectId, branch, files), latestCommitSeq }));
  }

  /**
   * Runs `answer` in a read-only snapshot in which the read model has applied `latest`, with the
   * sequence number that snapshot holds; waits for it (bounded), then 503 sync_catching_up.
   */
  async #onceApplied<T>(projectId: string, latest: Latest, answer: (tx: Queryable, latestCommitSeq: number) => Promise<T>): Promise<T> {
    const { db, applied, catchUpMs, progress } = this.#deps;
    const deadline = performance.now() + catchUpMs;
    for (;;) {
      const outcome = await db.transaction(async (tx): Promise<{ answered: T } | { behind: AppliedProgress }> => {
        // JIT compiling these index-probe plans costs more than it saves: they are cheap index probes.
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL jit = off');
        const state = await progress.applied(tx, projectId);
        if (state.appliedSeq < latest.sequenceNum || state.appliedChanges < latest.branchChanges) return { behind: state };
        return { answered: await answer(tx, state.appliedSeq) };
      });
      if ('answered' in outcome) return outcome.answered;
      const left = deadline - performance.now();
      if (left <= 0) throw errors.syncCatchingUp(latest.sequenceNum, outcome.behind.appliedSeq, outcome.behind.secondsSinceAdvanced);
      await applied.next(Math.min(left, CATCH_UP_POLL_MS));
    }
  }

  /** A batch's rows, in the snapshot #onceApplied opened, so latestCommitSeq names exactly the state they describe. */
  async #answer(tx: Queryable, projectId: string, branch: string | undefined, files: sync.BatchFiles) {
    const { branches, tree } = this.#deps;
    const lineage = await branches.lineage(tx, projectId, branch ?? commit.MAIN_BRANCH);
    const found = await tree.compare(tx, projectId, lineage, files);
    const rows = emptyColumns();
    found.forEach(({ remote, contentKnown }, i) => {
      const baseVersion = files.baseVersions[i] ?? undefined;
      appendRow(rows, decideStatus({ local: { sha256: files.sha256s[i], baseVersion }, remote, contentKnown }), remote);
    });
    return rows;
  }
}

function changeRow(file: ListedFile): sync.Change {
  const live = !file.deleted;
  return {
    path: file.path,
    fileId: file.fileId,
    status: live ? 'live' : 'deleted',
    version: live ? file.version : null,
    sha256: live ? file.sha256 : null,
    size: live ? file.size : null,
    commitSeq: file.commitSeq,
  };
}
