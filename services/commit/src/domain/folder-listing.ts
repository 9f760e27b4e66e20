import { errors } from '@lode/errors';
import type { Actor, commit } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { FolderPagesRepository, FolderPosition, ListedFolder } from '../repo/folder-pages-repo.ts';
import type { ListCursors } from './list-cursors.ts';

/**
 * The folder listing (docs/api.md, Folders): one level of a branch's tree, its subfolders with their
 * recursive file counts and sizes, then its files, paged across both.
 */
export class FolderListing {
  readonly #db: Database;
  readonly #pages: FolderPagesRepository;
  readonly #cursors: ListCursors;

  constructor(deps: { db: Database; pages: FolderPagesRepository; cursors: ListCursors }) {
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
  ): Promise<{ data: commit.FolderChild[]; nextCursor: string | null }> {
    const folder = prefix ?? '';
    const scope = ['folder', actor.projectId, branch, folder];
    const after = cursor === undefined ? undefined : positionOf(this.#cursors.decode(cursor, scope, ['string', 'string']));
    const { known, found, rows } = await this.#pages.page(this.#db, actor.projectId, branch, listedFolder(folder), after, limit + 1);
    if (!known) throw errors.notFound('Branch');
    if (!found) throw errors.notFound('Folder');
    const page = rows.slice(0, limit);
    const data = page.map((row): commit.FolderChild =>
      row.type === 'folder' ? { ...row, path: `${folder}${row.name}/` } : { ...row, name: row.path.slice(folder.length) },
    );
    const last = page.at(-1);
    const position = last === undefined ? [] : last.type === 'folder' ? ['folder', last.name] : ['file', last.path];
    return { data, nextCursor: rows.length > limit ? this.#cursors.encode(scope, position) : null };
  }
}

/** A folder path ('a/b/', '' for the root) with its own row's key: its parent ('a/') and name ('b'). */
export function listedFolder(folder: string): ListedFolder {
  if (folder === '') return { folder, row: null };
  const slash = folder.lastIndexOf('/', folder.length - 2);
  return { folder, row: { parent: folder.slice(0, slash + 1), name: folder.slice(slash + 1, -1) } };
}

function positionOf([type, key]: readonly [string, string]): FolderPosition {
  if (type === 'folder') return { type, name: key };
  if (type === 'file') return { type, path: key };
  throw errors.validation('Invalid cursor');
}
