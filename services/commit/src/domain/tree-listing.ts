import { errors } from '@lode/errors';
import type { Actor, commit } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { TreePagesRepository } from '../repo/tree-pages-repo.ts';
import type { ListCursors } from './list-cursors.ts';

/** The project tree (docs/api.md, Project tree): a branch's live files in path order, under a folder or all, and their figures. */
export class TreeListing {
  readonly #db: Database;
  readonly #pages: TreePagesRepository;
  readonly #cursors: ListCursors;

  constructor(deps: { db: Database; pages: TreePagesRepository; cursors: ListCursors }) {
    this.#db = deps.db;
    this.#pages = deps.pages;
    this.#cursors = deps.cursors;
  }

  async list(
    actor: Actor,
    branch: string,
    prefix: string | undefined,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ data: commit.TreeFile[]; nextCursor: string | null }> {
    const scope = ['tree', actor.projectId, branch, prefix ?? ''];
    const after = cursor === undefined ? undefined : this.#cursors.decode(cursor, scope, ['string'])[0];
    const { known, rows } = await this.#pages.page(this.#db, actor.projectId, branch, prefix, after, limit + 1);
    if (!known) throw errors.notFound('Branch');
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      data: page,
      nextCursor: rows.length > limit && last ? this.#cursors.encode(scope, [last.path]) : null,
    };
  }

  /** A project's figures for one branch: 404 for a branch that does not exist, as the listing. */
  async stats(actor: Actor, branch: string): Promise<commit.ProjectStats> {
    const row = await this.#pages.stats(this.#db, actor.projectId, branch);
    if (!row) throw errors.notFound('Branch');
    return { branch, ...row };
  }
}
