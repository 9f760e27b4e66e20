import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { commit, assertUniqueFileIds, upload, type Actor, type restore } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { replayIdempotent, whileIdempotencyKeyClaimed, type Database, type IdempotencyScope } from '@lode/db';
import type { RestoreRequest, RestoreRequestsRepository } from '../repo/restore-requests-repo.ts';
import { planRestore, restoreRequestHash, triage, type RestorePlan } from './restore-plan.ts';

/** Keeps restore keys apart from commit keys that happen to be spelled the same. */
const IDEMPOTENCY_NAMESPACE = 'lode.restore';

/**
 * A restore, orchestrated over the bus: the upload service makes the new versions, the commit
 * service makes them visible in one commit. Each step's outcome is recorded before the next runs
 * (docs/architecture.md, Restore), so a retry resumes where a failure left off and the restore
 * happens exactly once: the versions are made once per restore, and the commit carries the
 * idempotency key `restore:<restoreId>`.
 */
export class RestoreService {
  readonly #db: Database;
  readonly #bus: Bus;
  readonly #requests: RestoreRequestsRepository;

  constructor(deps: { db: Database; bus: Bus; requests: RestoreRequestsRepository }) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#requests = deps.requests;
  }

  async restore(actor: Actor, body: restore.RestoreBody, idempotencyKey: string | undefined): Promise<restore.RestoreResult> {
    const targets = body.files;
    assertUniqueFileIds(
      targets.map((t) => t.fileId),
      'restore',
    );
    const requestHash = restoreRequestHash(targets);
    const record = () =>
      this.#requests.insert(this.#db, {
        id: randomUUID(),
        projectId: actor.projectId,
        keyId: actor.keyId,
        userId: actor.userId,
        idemKey: idempotencyKey ?? null,
        requestHash,
        fileCount: targets.length,
      });
    if (idempotencyKey === undefined) return this.#run(actor, targets, await record());

    const scope: IdempotencyScope = { projectId: actor.projectId, keyId: actor.keyId, key: idempotencyKey };
    // A finished restore answers from its record alone, without waiting for the claim.
    const earlier = await this.#requests.findByKey(this.#db, scope);
    const replay = earlier && replayIdempotent(earlier, requestHash);
    if (replay) return replay;
    // The claim (a session's advisory lock on the key, no transaction) lasts across the bus calls
    // below, so a concurrent duplicate gets 409 at once and a crash frees the key; every step records
    // through the pool.
    return whileIdempotencyKeyClaimed(this.#db, IDEMPOTENCY_NAMESPACE, scope, async () => {
      const request = (await this.#requests.findByKey(this.#db, scope)) ?? (await record());
      return replayIdempotent(request, requestHash) ?? this.#run(actor, targets, request);
    });
  }

  /**
   * Past the retention a key may be used again and nothing will be replayed; who restored how many
   * files, when, and into which commit stays.
   */
  async releaseKeysOlderThan(ageMs: number): Promise<number> {
    return this.#requests.releaseOlderThan(this.#db, ageMs);
  }

  /** A request that already has its plan commits exactly that plan: nothing is decided twice. */
  async #run(actor: Actor, targets: readonly restore.RestoreTarget[], request: RestoreRequest): Promise<restore.RestoreResult> {
    const plan = request.plan ?? (await this.#prepare(actor, targets, request.id));
    // On a retry the commit service replays the commit if the first attempt made it; file_locked and
    // the other refusals of a commit reach the client unchanged.
    const made = await this.#bus.call(commit.create, {
      actor,
      commit: commit.toColumns(plan.commit),
      idempotencyKey: `restore:${request.id}`,
      kind: 'restore',
    });
    const result = { commitId: made.id, sequenceNum: made.sequenceNum, restored: plan.restored, skipped: plan.skipped };
    await this.#requests.finish(this.#db, request.id, result);
    return result;
  }

  /** Decides what to restore, has the upload service make the versions, and records the plan. */
  async #prepare(actor: Actor, targets: readonly restore.RestoreTarget[], restoreId: string): Promise<RestorePlan> {
    const { projectId } = actor;
    const lookup = { projectId, fileIds: targets.map((t) => t.fileId), versions: targets.map((t) => t.toVersion) };
    const [reply, main] = await Promise.all([
      this.#bus.call(upload.resolveVersions, lookup),
      this.#bus.call(commit.treeStates, { projectId, fileIds: lookup.fileIds }),
    ]);
    const resolved = upload.resolvedRows(lookup, reply);
    const tree = new Map(main.files.map((f) => [f.fileId, f]));
    const skips = triage(targets, resolved, tree);
    const restorable = targets.filter((t) => !skips.has(t.fileId));
    const prepared =
      restorable.length === 0 ? { created: [], skipped: [] } : await this.#bus.call(upload.prepareRestore, { actor, restoreId, targets: restorable });
    for (const s of prepared.skipped) skips.set(s.fileId, s.reason);
    const plan = planRestore(targets, skips, prepared.created, tree, new Map(resolved.files.map((f) => [f.fileId, f.path])));
    // No empty commit: the request fails as a whole, and nothing was made that a retry could reuse.
    if (plan.restored.length === 0) throw errors.nothingToRestore(plan.skipped);
    await this.#requests.savePlan(this.#db, restoreId, plan);
    return plan;
  }
}
