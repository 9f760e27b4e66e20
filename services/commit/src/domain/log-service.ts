import { errors } from '@lode/errors';
import type { Actor, commit } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { LogRepository } from '../repo/log-repo.ts';
import { MAIN_LINEAGE } from './lineage.ts';
import type { ListCursors } from './list-cursors.ts';

type Page<T> = { data: T[]; nextCursor: string | null };

/**
 * The commit log (docs/api.md, Commit log): a branch's lineage newest first, one commit, and what a
 * commit changed. A commit of another project reads as one that does not exist.
 */
export class LogService {
  readonly #db: Database;
  readonly #log: LogRepository;
  readonly #cursors: ListCursors;

  constructor(deps: { db: Database; log: LogRepository; cursors: ListCursors }) {
    this.#db = deps.db;
    this.#log = deps.log;
    this.#cursors = deps.cursors;
  }

  async list(actor: Actor, branch: string, cursor: string | undefined, limit: number): Promise<Page<commit.LogEntry>> {
    const scope = ['log', actor.projectId, branch];
    const before = cursor === undefined ? undefined : this.#cursors.decode(cursor, scope, ['number'])[0];
    const { known, rows } = await this.#log.page(this.#db, actor.projectId, branch, MAIN_LINEAGE, before, limit + 1);
    if (!known) throw errors.notFound('Branch');
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { data: page, nextCursor: rows.length > limit && last ? this.#cursors.encode(scope, [last.sequenceNum]) : null };
  }

  async get(actor: Actor, commitId: string): Promise<commit.LogEntry> {
    const row = await this.#log.find(this.#db, actor.projectId, commitId);
    if (!row) throw errors.notFound('Commit');
    return row;
  }

  /** Every commit has at least one entry, so an empty first page means no such commit in the project. */
  async files(actor: Actor, commitId: string, cursor: string | undefined, limit: number): Promise<Page<commit.CommittedEntry>> {
    const scope = ['files', actor.projectId, commitId];
    const after = cursor === undefined ? undefined : this.#cursors.decode(cursor, scope, ['string', 'string']);
    const rows = await this.#log.entries(this.#db, actor.projectId, commitId, after, limit + 1);
    if (rows.length === 0 && after === undefined) throw errors.notFound('Commit');
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { data: page, nextCursor: rows.length > limit && last ? this.#cursors.encode(scope, [last.path, last.fileId]) : null };
  }
}
