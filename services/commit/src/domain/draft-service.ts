import { createHash, randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { assertUniqueFileIds, storage, upload, type Actor, type commit, type drafts } from '@lode/contracts';
import { MAIN_BRANCH, MAX_COMMIT_ENTRIES } from '@lode/contracts/commit';
import type { Bus } from '@lode/bus';
import type { Database } from '@lode/db';
import type { DraftRow, DraftsRepository } from '../repo/drafts-repo.ts';
import type { IdempotencyRepository } from '../repo/idempotency-repo.ts';
import type { CommitRecorder } from './commit-recorder.ts';
import { checkResolved } from './commit-plan.ts';
import { stagedEntries } from './staged-entries.ts';
import { commitOnce, idempotencyScope, replayEarlier } from './idempotent-commit.ts';

export interface DraftServiceDeps {
  db: Database;
  bus: Bus;
  recorder: CommitRecorder;
  drafts: DraftsRepository;
  idempotency: IdempotencyRepository;
  /** How long a draft lives after it was created (LODE_DRAFT_TTL_MS). */
  ttlMs: number;
}

/**
 * Draft commits (docs/api.md, Draft commits): entries staged over many calls, each checked as a commit's
 * are when staged, then committed as one commit with every rule of a commit. The commit service
 * never holds more than one call's or one fence page's entries.
 */
export class DraftService {
  readonly #deps: DraftServiceDeps;

  constructor(deps: DraftServiceDeps) {
    this.#deps = deps;
  }

  async create(actor: Actor, body: drafts.CreateBody): Promise<drafts.Draft> {
    const { db, drafts: repo, ttlMs } = this.#deps;
    const { revision: _, ...draft } = await repo.create(db, actor, { id: randomUUID(), message: body.message, branch: body.branch ?? MAIN_BRANCH, ttlMs });
    return draft;
  }

  async get(actor: Actor, draftId: string): Promise<drafts.Draft> {
    const { revision: _, ...draft } = await this.#owned(actor, draftId);
    return draft;
  }

  /**
   * Checks every entry as a commit does (files of this project, confirmed versions) and stages them
   * all or none. What the upload service resolves is kept with the entry (versions are immutable),
   * so committing the draft asks it nothing.
   */
  async stage(actor: Actor, draftId: string, entries: commit.EntryColumns): Promise<{ id: string; fileCount: number }> {
    const { db, bus, drafts: repo } = this.#deps;
    assertUniqueFileIds(entries.fileIds, 'call');
    await this.#owned(actor, draftId);
    const resolved = await bus.call(upload.resolveVersions, { projectId: actor.projectId, fileIds: entries.fileIds, versions: entries.versions });
    checkResolved(entries, resolved);
    const rows = stagedEntries(entries, resolved);
    const fileCount = await db.transaction(async (tx) => {
      // Locked: a commit of the draft in progress and this call exclude each other.
      if (!(await repo.find(tx, actor, draftId, true))) throw errors.notFound('Draft');
      return repo.stage(tx, draftId, rows);
    });
    return { id: draftId, fileCount };
  }

  /**
   * One commit of everything staged. Its files are fenced page by page, read from the draft, by a
   * fence that lives long enough for a commit of its size; the transaction then checks that nothing
   * was staged since (a file no fence covers), records the commit set-based from the draft's rows
   * and deletes the draft with it. A refused commit (locks, stale versions) keeps the draft. A retry
   * under the same X-Idempotency-Key replays the commit once the draft is gone.
   */
  async commit(actor: Actor, draftId: string, idempotencyKey: string | undefined): Promise<commit.Commit> {
    const { db, idempotency, recorder, drafts: repo } = this.#deps;
    const guard = { scope: idempotencyScope(actor, idempotencyKey), requestHash: createHash('sha256').update(`draft:${draftId}`).digest('hex') };
    const earlier = await replayEarlier(db, idempotency, guard);
    if (earlier) return earlier;
    const draft = await this.#owned(actor, draftId);
    if (draft.fileCount === 0) throw errors.emptyDraft();

    const outcome = await recorder.fenced(
      actor,
      { pages: this.#filePages(draftId), count: draft.fileCount },
      {
        prepare: () => this.#refusePurged(actor.projectId, draftId),
        write: (tx) =>
          commitOnce(tx, idempotency, guard, async () => {
            const current = await repo.find(tx, actor, draftId, true);
            if (!current) throw errors.notFound('Draft');
            if (current.revision !== draft.revision) throw errors.conflict('Files were staged in the draft while it was being committed; commit it again');
            const reply = await recorder.recordStaged(tx, actor, current);
            await repo.remove(tx, actor, draftId);
            return reply;
          }),
        committed: (result) => !result.replayed,
      },
    );
    return outcome.reply;
  }

  async remove(actor: Actor, draftId: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.#deps.drafts.remove(this.#deps.db, actor, draftId))) throw errors.notFound('Draft');
    return { id: draftId, deleted: true };
  }

  /** Removes expired drafts with their entries (they already read as gone). */
  async sweepExpired(): Promise<number> {
    return this.#deps.drafts.sweepExpired(this.#deps.db);
  }

  /** Another user's or project's draft, an expired or unknown one: all 404 alike. */
  async #owned(actor: Actor, draftId: string): Promise<DraftRow> {
    const draft = await this.#deps.drafts.find(this.#deps.db, actor, draftId);
    if (!draft) throw errors.notFound('Draft');
    return draft;
  }

  /**
   * A version staged before it was obliterated must not become committed: the purge is the upload
   * service's, so finalizing asks it about every staged version, a page at a time, and refuses the
   * draft as a commit naming those versions is refused. The draft stays; unstage or restage them.
   */
  async #refusePurged(projectId: string, draftId: string): Promise<void> {
    const { db, bus, drafts: repo } = this.#deps;
    const purged: { fileId: string; version: number }[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await repo.versionPage(db, draftId, after, MAX_COMMIT_ENTRIES);
      if (page.length === 0) break;
      const { purges } = await bus.call(storage.purgedVersions, {
        projectId,
        fileIds: page.map((entry) => entry.fileId),
        versions: page.map((entry) => entry.version),
      });
      purged.push(...page.filter((_, i) => purges[i] !== null));
      if (page.length < MAX_COMMIT_ENTRIES) break;
      after = page[page.length - 1].fileId;
    }
    if (purged.length > 0) throw errors.versionNotConfirmed(purged);
  }

  /** The draft's file ids, one fence request's worth at a time. */
  async *#filePages(draftId: string): AsyncIterable<string[]> {
    let after: string | undefined;
    for (;;) {
      const page = await this.#deps.drafts.fileIdPage(this.#deps.db, draftId, after, MAX_COMMIT_ENTRIES);
      if (page.length > 0) yield page;
      if (page.length < MAX_COMMIT_ENTRIES) return;
      after = page[page.length - 1];
    }
  }
}
