import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { assertUniqueFileIds, upload, type Actor, type branches, type commit } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import type { Bus } from '@lode/bus';
import type { Database, Queryable } from '@lode/db';
import type { BranchesRepository } from '../repo/branches-repo.ts';
import type { MergeRepository } from '../repo/merge-repo.ts';
import { checkResolved, type Resolution } from './commit-plan.ts';
import type { CommitRecorder } from './commit-recorder.ts';
import { forkPoint, MAIN_LINEAGE, type Lineage } from './lineage.ts';
import { changedOnBoth, planMerge, type Candidate, type Take } from './merge-plan.ts';

/** How often a merge plans again when commits keep landing on the target while it prepares. */
const MAX_ATTEMPTS = 3;

/** A branch as a merge reads it: its lineage, and what identifies its state (a head, a generation). */
interface BranchState {
  lineage: Lineage;
  headSeq: number | null;
  createdAfter: number;
}

/** A plan, with the target's state it was made against. */
interface PlannedMerge {
  takes: Take[];
  target: BranchState;
}

/** The target moved between planning and recording: plan again. */
class TargetMoved extends Error {}

/**
 * Merges a branch into another as one merge commit on the target (docs/api.md, Merge). It plans on
 * a snapshot of both branches, makes the versions it needs and fences the files outside any
 * transaction, then records through the same path as every commit, after checking under the
 * project's sequence lock that the target did not move since the plan; if it did, it plans again.
 */
export class MergeService {
  readonly #db: Database;
  readonly #bus: Bus;
  readonly #branches: BranchesRepository;
  readonly #merges: MergeRepository;
  readonly #recorder: CommitRecorder;

  constructor(deps: { db: Database; bus: Bus; branches: BranchesRepository; merges: MergeRepository; recorder: CommitRecorder }) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#branches = deps.branches;
    this.#merges = deps.merges;
    this.#recorder = deps.recorder;
  }

  async merge(
    actor: Actor,
    request: { source: string; into: string; message: string | undefined; resolutions: readonly branches.Resolution[] },
  ): Promise<commit.Commit & { kind: 'merge' }> {
    const { source, into } = request;
    if (source === into)
      throw errors.validation('Invalid body: into: must name another branch than the one merged', {
        issues: [{ path: 'into', message: 'must name another branch than the one merged' }],
      });
    assertUniqueFileIds(
      request.resolutions.map((r) => r.fileId),
      'merge',
    );
    const resolutions = new Map(request.resolutions.map((r) => [r.fileId, r.take]));
    const message = request.message ?? `Merge ${source} into ${into}`;
    for (let attempt = 1; ; attempt++) {
      const plan = await this.#plan(actor.projectId, source, into, resolutions);
      try {
        return { ...(await this.#record(actor, into, message, plan)), kind: 'merge' };
      } catch (error) {
        if (!(error instanceof TargetMoved)) throw error;
        if (attempt === MAX_ATTEMPTS) throw errors.conflict(`Branch "${into}" kept changing while the merge was prepared; merge again`);
      }
    }
  }

  /** One snapshot of both branches: the plan, or the conflicts (with their fork-point versions), or nothing to merge. */
  async #plan(projectId: string, source: string, into: string, resolutions: ReadonlyMap<string, 'source' | 'target'>): Promise<PlannedMerge> {
    return this.#db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const [from, target] = [await this.#state(tx, projectId, source), await this.#state(tx, projectId, into)];
      const point = forkPoint(from.lineage, target.lineage);
      const candidates = await this.#histories(tx, projectId, { from, target }, point, await this.#merges.candidates(tx, projectId, source, into, point));
      const { takes, conflicts } = planMerge(candidates, point, resolutions);
      if (conflicts.length > 0) {
        const base = await this.#merges.versionsAt(
          tx,
          projectId,
          from.lineage,
          point,
          conflicts.map((c) => c.fileId),
        );
        throw errors.mergeConflict(conflicts.map((c) => ({ ...c, baseVersion: base.get(c.fileId) ?? null })));
      }
      if (takes.length === 0) throw errors.nothingToMerge(source, into);
      return { takes, target };
    });
  }

  /**
   * For files changed on both sides by their trees, whether either side's version came from the
   * other's lineage (an earlier merge): two lookups, one per lineage, of those files only.
   */
  async #histories(
    tx: Queryable,
    projectId: string,
    sides: { from: BranchState; target: BranchState },
    point: number,
    candidates: Candidate[],
  ): Promise<Candidate[]> {
    const both = changedOnBoth(candidates, point);
    if (both.length === 0) return candidates;
    const targetKnownToSource = await this.#merges.versionsHeld(
      tx,
      projectId,
      sides.from.lineage,
      both.map((b) => ({ fileId: b.fileId, version: b.targetVersion })),
    );
    const sourceKnownToTarget = await this.#merges.versionsHeld(
      tx,
      projectId,
      sides.target.lineage,
      both.map((b) => ({ fileId: b.fileId, version: b.sourceVersion })),
    );
    return candidates.map((c) => ({ ...c, targetKnownToSource: targetKnownToSource.has(c.fileId), sourceKnownToTarget: sourceKnownToTarget.has(c.fileId) }));
  }

  async #state(q: Queryable, projectId: string, name: string): Promise<BranchState> {
    const row = await this.#branches.find(q, projectId, name);
    if (row) return row;
    if (name === MAIN_BRANCH) return { lineage: MAIN_LINEAGE, headSeq: null, createdAfter: 0 };
    throw errors.notFound('Branch');
  }

  async #record(actor: Actor, into: string, message: string, plan: PlannedMerge): Promise<commit.Commit> {
    const fileIds = plan.takes.map((t) => t.fileId);
    return this.#recorder.fenced(actor, fileIds, {
      prepare: () => this.#versions(actor, { message, branch: into, fileIds }, plan.takes),
      write: (tx, { columns, resolved }) =>
        this.#recorder.record(tx, actor, columns, resolved, {
          kind: 'merge',
          afterLock: async () => {
            // Under the sequence lock: a commit on the target since the plan could be undone by it.
            const now = await this.#branches.find(tx, actor.projectId, into);
            const target = now ?? { headSeq: null, createdAfter: 0 };
            if (target.headSeq !== plan.target.headSeq || target.createdAfter !== plan.target.createdAfter) throw new TargetMoved();
          },
        }),
      committed: () => true,
    });
  }

  /**
   * The merge commit's entries and what the upload service knows of their versions: one call makes
   * the new versions a take needs (a version not newer than the target's, with its content, as a
   * restore does), one resolves them all.
   */
  async #versions(
    actor: Actor,
    header: Pick<commit.CommitColumns, 'message' | 'branch' | 'fileIds'>,
    takes: readonly Take[],
  ): Promise<{ columns: commit.CommitColumns; resolved: Resolution }> {
    const fresh = takes.flatMap((t) => (t.action === 'set' && t.newVersion ? [{ fileId: t.fileId, toVersion: t.version }] : []));
    const made =
      fresh.length === 0 ? { created: [], skipped: [] } : await this.#bus.call(upload.prepareRestore, { actor, restoreId: randomUUID(), targets: fresh });
    if (made.skipped.length > 0) {
      throw errors.conflict(`The content of ${made.skipped.length} version(s) to merge is missing from storage`, {
        missing: made.skipped.map(({ fileId, toVersion }) => ({ fileId, version: toVersion })),
      });
    }
    const newVersion = new Map(made.created.map((c) => [c.fileId, c.version]));
    const columns: commit.CommitColumns = {
      ...header,
      actions: takes.map((t) => (t.action === 'delete' ? 'delete' : 'modify')),
      versions: takes.map((t) => (t.action === 'delete' ? null : (newVersion.get(t.fileId) ?? t.version))),
    };
    const resolved = await this.#bus.call(upload.resolveVersions, { projectId: actor.projectId, fileIds: columns.fileIds, versions: columns.versions });
    checkResolved(columns, resolved);
    return { columns, resolved };
  }
}
