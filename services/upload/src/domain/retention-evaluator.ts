import { commit, lock } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Database } from '@lode/db';
import type { BatchFile, CandidateVersion, RetentionRepository } from '../repo/retention-repo.ts';
import { isRemoved, policyFor, type CompiledRule, type FilePolicy } from './retention-plan.ts';

/** A version retention removes, with its file's path and the rule history names. */
export interface RemovedVersion extends CandidateVersion {
  path: string;
  rule: string;
}

/** What the rules remove from one batch of files: those after `afterKey` through `throughKey`, in path-key order. */
export interface BatchPlan {
  afterKey: string;
  throughKey: string;
  versions: RemovedVersion[];
  /** Files with versions to remove, left alone because someone holds a lock on them. */
  lockedFiles: number;
}

/**
 * Evaluates retention rules over a project, one batch of files at a time: the files in path-key
 * order (the unique index), the rules matched against each path here, the versions past what the
 * matching rules keep read per file from the (file, version) index, and the versions the commit
 * service pins (branch tips, drafts) and the files the lock service reports locked left out. The
 * bus is asked outside any transaction: no row lock waits on a network round trip.
 */
export class RetentionEvaluator {
  readonly #db: Database;
  readonly #bus: Bus;
  readonly #repo: RetentionRepository;
  readonly #batchSize: number;

  constructor(deps: { db: Database; bus: Bus; retention: RetentionRepository }, options: { batchSize: number }) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#repo = deps.retention;
    this.#batchSize = options.batchSize;
  }

  /**
   * Every batch of the project, in order, as the rules stand at `asOfMs`; none without rules. The
   * next batch is evaluated while the caller works on this one (a dry run's object probe, a run's
   * purge): its files are others, so nothing the caller does to this batch changes the next one's plan.
   */
  async *batches(projectId: string, rules: readonly CompiledRule[], asOfMs: number): AsyncGenerator<BatchPlan> {
    if (rules.length === 0) return;
    let next = this.#after(projectId, rules, asOfMs, '');
    try {
      for (;;) {
        const batch = await next;
        if (!batch) return;
        next = batch.last ? Promise.resolve(undefined) : this.#after(projectId, rules, asOfMs, batch.plan.throughKey);
        yield batch.plan;
      }
    } finally {
      // A caller that stops early (a failed purge) leaves the read ahead unawaited: its failure is nobody's.
      next.catch(() => undefined);
    }
  }

  /** The batch of files after `afterKey`, evaluated; undefined past the last file. */
  async #after(projectId: string, rules: readonly CompiledRule[], asOfMs: number, afterKey: string): Promise<{ plan: BatchPlan; last: boolean } | undefined> {
    const files = await this.#repo.fileBatch(this.#db, projectId, afterKey, null, this.#batchSize);
    if (files.length === 0) return undefined;
    const throughKey = files[files.length - 1].pathKey;
    return { plan: { afterKey, throughKey, ...(await this.#evaluate(projectId, rules, asOfMs, files)) }, last: files.length < this.#batchSize };
  }

  /** One batch again, by the range an earlier evaluation covered (files made since in the range included). */
  async batch(projectId: string, rules: readonly CompiledRule[], asOfMs: number, range: { afterKey: string; throughKey: string }): Promise<BatchPlan> {
    const files = await this.#repo.fileBatch(this.#db, projectId, range.afterKey, range.throughKey, Number.MAX_SAFE_INTEGER);
    return { ...range, ...(await this.#evaluate(projectId, rules, asOfMs, files)) };
  }

  async #evaluate(
    projectId: string,
    rules: readonly CompiledRule[],
    asOfMs: number,
    files: readonly BatchFile[],
  ): Promise<Pick<BatchPlan, 'versions' | 'lockedFiles'>> {
    const matched = new Map<string, { file: BatchFile; policy: FilePolicy }>();
    for (const file of files) {
      const policy = policyFor(rules, file.pathKey);
      if (policy) matched.set(file.id, { file, policy });
    }
    const candidates = await this.#repo.candidates(
      this.#db,
      projectId,
      [...matched.values()].map(({ file, policy }) => ({ id: file.id, keepLast: policy.keepLast })),
    );
    const removable = candidates.filter((v) => isRemoved(matched.get(v.fileId)!.policy, v.rank, Date.parse(v.createdAt), asOfMs));
    if (removable.length === 0) return { versions: [], lockedFiles: 0 };
    const fileIds = [...new Set(removable.map((v) => v.fileId))];
    const [pinned, locked] = await Promise.all([
      this.#bus.call(commit.pinnedVersions, { projectId, fileIds }),
      this.#bus.call(lock.lockedFiles, { projectId, fileIds }),
    ]);
    const pinnedVersions = new Set(pinned.versions.map((v) => `${v.fileId}:${v.version}`));
    const lockedFiles = new Set(locked.fileIds);
    const versions = removable
      .filter((v) => !lockedFiles.has(v.fileId) && !pinnedVersions.has(`${v.fileId}:${v.version}`))
      .map((v) => {
        const { file, policy } = matched.get(v.fileId)!;
        return { ...v, path: file.path, rule: policy.rule };
      });
    return { versions, lockedFiles: lockedFiles.size };
  }
}
