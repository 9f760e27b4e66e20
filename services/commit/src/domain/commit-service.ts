import { errors } from '@lode/errors';
import { assertUniqueFileIds, upload, type Actor, type commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { replayIdempotent, type Database, type IdempotencyScope, type Queryable } from '@lode/db';
import type { IdempotencyRepository } from '../repo/idempotency-repo.ts';
import { checkResolved, type Resolution } from './commit-plan.ts';
import type { CommitRecorder } from './commit-recorder.ts';
import { commitRequestHash } from './request-hash.ts';

export interface CommitServiceDeps {
  db: Database;
  bus: Bus;
  recorder: CommitRecorder;
  idempotency: IdempotencyRepository;
}

/**
 * Spec 4.6: validate every entry, then make the commit visible atomically with the next sequence
 * number, the tree, the branch head, the idempotency record and the outbox event.
 */
export class CommitService {
  readonly #deps: CommitServiceDeps;

  constructor(deps: CommitServiceDeps) {
    this.#deps = deps;
  }

  /** `kind`: a client's commit, or a restore's (the restore service commits through here). */
  async create(actor: Actor, columns: commit.CommitColumns, idempotencyKey: string | undefined, kind: 'commit' | 'restore'): Promise<commit.Commit> {
    const { db, bus, idempotency, recorder } = this.#deps;
    assertUniqueFileIds(columns.fileIds, 'commit');
    const requestHash = commitRequestHash(columns);
    const scope: IdempotencyScope | undefined = idempotencyKey === undefined ? undefined : { projectId: actor.projectId, keyId: actor.keyId, key: idempotencyKey };
    // A replay answers from the record alone, before any work.
    const earlier = scope && (await idempotency.find(db, scope));
    if (earlier) return replayIdempotent(earlier, requestHash);

    const outcome = await recorder.fenced(actor, columns.fileIds, {
      // Versions are immutable once confirmed, so this can be read before the transaction, in one call.
      prepare: async () => {
        const resolved = await bus.call(upload.resolveVersions, { projectId: actor.projectId, fileIds: columns.fileIds, versions: columns.versions });
        checkResolved(columns, resolved);
        return resolved;
      },
      write: (tx, resolved) => this.#commit(tx, actor, { columns, resolved, kind }, { scope, requestHash }),
      committed: (result) => !result.replayed,
    });
    return outcome.reply;
  }

  async #commit(
    tx: Queryable,
    actor: Actor,
    work: { columns: commit.CommitColumns; resolved: Resolution; kind: 'commit' | 'restore' },
    guard: { scope: IdempotencyScope | undefined; requestHash: string },
  ): Promise<{ reply: commit.Commit; replayed: boolean }> {
    const { scope, requestHash } = guard;
    const { idempotency, recorder } = this.#deps;
    if (scope) {
      if (!(await idempotency.tryClaim(tx, scope))) throw errors.idempotencyInProgress();
      const finished = await idempotency.find(tx, scope);
      if (finished) return { reply: replayIdempotent(finished, requestHash), replayed: true };
    }
    const reply = await recorder.record(tx, actor, work.columns, work.resolved, { kind: work.kind });
    if (scope) await idempotency.save(tx, scope, { requestHash, response: reply });
    return { reply, replayed: false };
  }

  /** Past the retention an idempotency key may be used again: its outcome is no longer replayed. */
  async purgeOutcomesOlderThan(ageMs: number): Promise<number> {
    return this.#deps.idempotency.purgeOlderThan(this.#deps.db, ageMs);
  }
}
