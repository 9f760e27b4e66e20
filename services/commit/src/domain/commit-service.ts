import { assertUniqueFileIds, upload, type Actor, type commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Database } from '@lode/db';
import { recordableSmall } from '../repo/commits-repo.ts';
import type { IdempotencyRepository } from '../repo/idempotency-repo.ts';
import { checkResolved, type Resolution } from './commit-plan.ts';
import type { CommitRecorder, FencedSteps } from './commit-recorder.ts';
import { commitRequestHash } from './request-hash.ts';
import { answerRecorded, commitOnce, idempotencyScope, replayEarlier, type CommittedOnce } from './idempotent-commit.ts';

export interface CommitServiceDeps {
  db: Database;
  bus: Bus;
  recorder: CommitRecorder;
  idempotency: IdempotencyRepository;
}

/**
 * A commit: validate every entry, then make the commit visible atomically with the next sequence
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
    const guard = { scope: idempotencyScope(actor, idempotencyKey), requestHash: commitRequestHash(columns) };
    const earlier = await replayEarlier(db, idempotency, guard);
    if (earlier) return earlier;

    const steps: FencedSteps<Resolution, CommittedOnce> = {
      // Versions are immutable once confirmed, so this can be read before the transaction, in one call.
      prepare: async () => {
        const resolved = await bus.call(upload.resolveVersions, { projectId: actor.projectId, fileIds: columns.fileIds, versions: columns.versions });
        checkResolved(columns, resolved);
        return resolved;
      },
      write: (tx, resolved) => commitOnce(tx, idempotency, guard, () => recorder.record(tx, actor, columns, resolved, { kind })),
      committed: (result) => !result.replayed,
    };
    if (recordableSmall(columns.fileIds.length)) {
      steps.writeAlone = async (q, resolved, msLeft) => {
        const scope = guard.scope && { scope: guard.scope, requestHash: guard.requestHash };
        return answerRecorded(await recorder.recordSmall(q, actor, columns, resolved, { kind, guard: scope, msLeft }), guard);
      };
    }
    const outcome = await recorder.fenced(actor, columns.fileIds, steps);
    return outcome.reply;
  }

  /** Past the retention an idempotency key may be used again: its outcome is no longer replayed. */
  async purgeOutcomesOlderThan(ageMs: number): Promise<number> {
    return this.#deps.idempotency.purgeOlderThan(this.#deps.db, ageMs);
  }
}
