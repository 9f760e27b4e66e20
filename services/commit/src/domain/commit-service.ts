import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { upload, type Actor, type commit } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import type { Bus } from '@lode/bus';
import type { Database } from '@lode/db';
import { writeOutbox } from '@lode/outbox';
import type { CommitsRepository } from '../repo/commits-repo.ts';
import type { IdempotencyRepository, IdempotencyScope } from '../repo/idempotency-repo.ts';
import { checkResolved, duplicateFileIds, planEntries } from './commit-plan.ts';
import { commitCreatedEvents } from './event-parts.ts';
import { commitRequestHash } from './request-hash.ts';

export interface CommitServiceDeps {
  db: Database;
  bus: Bus;
  commits: CommitsRepository;
  idempotency: IdempotencyRepository;
  /** Called after a commit's transaction committed, so the outbox relay publishes without waiting for its poll. */
  onCommitted: () => void;
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

  async create(actor: Actor, body: commit.CommitBody, idempotencyKey: string | undefined): Promise<commit.Commit> {
    const { db, idempotency } = this.#deps;
    const duplicates = duplicateFileIds(body.fileVersions);
    if (duplicates.length > 0) {
      throw errors.validation('Each file may appear once per commit', { duplicateFileIds: duplicates.slice(0, 100) });
    }
    const requestHash = commitRequestHash(body);
    const scope: IdempotencyScope | undefined = idempotencyKey === undefined ? undefined : { projectId: actor.projectId, keyId: actor.keyId, key: idempotencyKey };
    // A replay answers from the record alone, before any work.
    const earlier = scope && (await idempotency.find(db, scope));
    if (earlier) return replay(earlier, requestHash);

    // Versions are immutable once confirmed, so this can be read before the transaction, in one call.
    const resolved = await this.#deps.bus.call(upload.resolveVersions, {
      projectId: actor.projectId,
      refs: body.fileVersions.map((e) => (e.action === 'delete' ? { fileId: e.fileId } : { fileId: e.fileId, version: e.version })),
    });
    const known = checkResolved(body.fileVersions, resolved);
    const branch = body.branch ?? MAIN_BRANCH;

    const result = await db.transaction(async (tx) => {
      if (scope) {
        if (!(await idempotency.tryClaim(tx, scope))) throw errors.idempotencyInProgress();
        const finished = await idempotency.find(tx, scope);
        if (finished) return replay(finished, requestHash);
      }
      const { commits } = this.#deps;
      const sequenceNum = await commits.nextSequence(tx, actor.projectId);
      await commits.ensureBranch(tx, actor.projectId, branch, MAIN_BRANCH);
      const tree = await commits.treeStates(tx, actor.projectId, branch, body.fileVersions.map((e) => e.fileId));
      const entries = planEntries(body.fileVersions, known, tree);
      const reply: commit.Commit = { id: randomUUID(), sequenceNum, message: body.message, fileCount: entries.length, branch };
      const createdAt = await commits.record(
        tx,
        { ...reply, projectId: actor.projectId, authorId: actor.userId, authorName: actor.userName },
        entries,
      );
      await writeOutbox(
        tx,
        commitCreatedEvents(
          {
            commitId: reply.id,
            projectId: actor.projectId,
            branch,
            sequenceNum,
            message: body.message,
            author: { userId: actor.userId, userName: actor.userName },
            createdAt: createdAt.toISOString(),
            fileCount: entries.length,
          },
          entries.map(({ fileId, path, action, version, sha256, size }) => ({ fileId, path, action, version, sha256, size })),
        ),
      );
      if (scope) await idempotency.save(tx, scope, { requestHash, response: reply });
      return reply;
    });
    this.#deps.onCommitted();
    return result;
  }
}

function replay(stored: { requestHash: string; response: commit.Commit }, requestHash: string): commit.Commit {
  if (stored.requestHash !== requestHash) throw errors.idempotencyKeyReused();
  return stored.response;
}
