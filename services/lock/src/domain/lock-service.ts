import { errors } from '@lode/errors';
import { managesOrg, pathKey, upload, type Actor, type lock, type ParsedRequestOf, type ReplyOf } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { CursorCodec, Database } from '@lode/db';
import type { LockFilter, LocksRepository } from '../repo/locks-repo.ts';
import { distinct, inRequestOrder, planAcquire, planRelease, toLock } from './lock-plan.ts';
import { PathCache } from './path-cache.ts';

type ListQuery = Omit<ParsedRequestOf<typeof lock.list>, 'actor'>;

/** Take, list and release exclusive file locks. */
export class LockService {
  readonly #db: Database;
  readonly #bus: Bus;
  readonly #locks: LocksRepository;
  readonly #cursors: CursorCodec;
  readonly #known = new PathCache();
  readonly #onEvents: () => void;

  /** onEvents: a change that wrote lock.changed events committed (the outbox relay publishes them at once). */
  constructor(deps: { db: Database; bus: Bus; locks: LocksRepository; cursors: CursorCodec; onEvents: () => void }) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#locks = deps.locks;
    this.#cursors = deps.cursors;
    this.#onEvents = deps.onEvents;
  }

  async acquire(actor: Actor, fileIds: readonly string[], note = ''): Promise<ReplyOf<typeof lock.acquire>> {
    const requested = distinct(fileIds);
    const paths = await this.#paths(actor.projectId, requested);
    const files = requested.flatMap((fileId) => {
      const path = paths.get(fileId);
      return path === undefined ? [] : [{ fileId, path, pathKey: pathKey(path) }];
    });
    const { taken, held, fenced } =
      files.length === 0 ? { taken: [], held: [], fenced: [] } : await this.#locks.acquire(this.#db, actor.projectId, actor, note, files);
    if (taken.length > 0) this.#onEvents();
    const plan = planAcquire(requested, paths, held, fenced, actor.userId);
    return {
      acquired: inRequestOrder(taken, requested).map((row) => toLock(row, actor.userId)),
      conflicts: plan.conflicts,
      notFound: plan.notFound,
    };
  }

  /** Which of these files someone holds a lock on, whoever it is (retention leaves them alone). */
  async lockedFiles(projectId: string, fileIds: readonly string[]): Promise<string[]> {
    return fileIds.length === 0 ? [] : this.#locks.lockedAmong(this.#db, projectId, fileIds);
  }

  async list(actor: Actor, query: ListQuery): Promise<ReplyOf<typeof lock.list>> {
    const filter: LockFilter = {
      pathKeyPrefix: query.pathPrefix && pathKey(query.pathPrefix.normalize('NFC')),
      pathKey: query.path && pathKey(query.path.normalize('NFC')),
      userId: query.userId,
      fileId: query.fileId,
    };
    const scope = [actor.projectId, filter.pathKeyPrefix ?? '', filter.userId ?? '', filter.pathKey ?? '', filter.fileId ?? ''];
    const after = query.cursor === undefined ? undefined : this.#decode(query.cursor, scope);
    const rows = await this.#locks.page(this.#db, actor.projectId, filter, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      data: page.map((row) => toLock(row, actor.userId)),
      nextCursor: rows.length > query.limit && last ? this.#cursors.encode([...scope, last.path, last.fileId]) : null,
    };
  }

  /** acquire of the file at a path, which the upload service makes when the path has none yet. */
  async acquirePath(actor: Actor, path: string, note = ''): Promise<ReplyOf<typeof lock.acquire>> {
    const { files } = await this.#bus.call(upload.ensureFiles, { projectId: actor.projectId, paths: [path] });
    const [file] = files;
    if (!file) throw new Error('ensure_files answered no file');
    this.#known.set(actor.projectId, file.fileId, file.path);
    return this.acquire(actor, [file.fileId], note);
  }

  async release(actor: Actor, fileIds: readonly string[], force: boolean): Promise<ReplyOf<typeof lock.release>> {
    // Forcing is for org owners and admins, who manage the org's locks (managesOrg).
    if (force && !managesOrg(actor.role)) throw errors.forbidden('Only org owners and admins may release locks held by others (force: true)');
    const requested = distinct(fileIds);
    const plan = planRelease(requested, await this.#locks.release(this.#db, actor.projectId, requested, actor, force), actor.userId, force);
    if (plan.release.length > 0) this.#onEvents();
    // Only files without a lock need the upload service, to tell a file that exists here from one that does not.
    const paths = plan.unlocked.length === 0 ? new Map<string, string>() : await this.#paths(actor.projectId, plan.unlocked);
    return {
      released: plan.release.map((row) => toLock(row, actor.userId)),
      notReleased: [
        ...plan.heldByOther.map((row) => ({ reason: 'held_by_other' as const, ...toLock(row, actor.userId) })),
        ...plan.unlocked.flatMap((fileId) => {
          const path = paths.get(fileId);
          return path === undefined ? [] : [{ reason: 'not_locked' as const, fileId, path }];
        }),
      ],
      notFound: plan.unlocked.filter((fileId) => !paths.has(fileId)),
    };
  }

  /** Paths of the files the upload service knows in this project; another project's file is simply absent. */
  async #paths(projectId: string, fileIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const unknown: string[] = [];
    for (const fileId of fileIds) {
      const path = this.#known.get(projectId, fileId);
      if (path === undefined) unknown.push(fileId);
      else found.set(fileId, path);
    }
    if (unknown.length === 0) return found;
    const { paths } = await this.#bus.call(upload.resolveVersions, { projectId, fileIds: unknown });
    unknown.forEach((fileId, i) => {
      const path = paths[i];
      if (typeof path !== 'string') return;
      found.set(fileId, path);
      this.#known.set(projectId, fileId, path);
    });
    return found;
  }

  /** A cursor is bound to its project and filters, so it cannot page through another listing. */
  #decode(cursor: string, scope: readonly string[]): [string, string] {
    const position = this.#cursors.decode(cursor);
    const [path, fileId] = position.slice(scope.length);
    const sameScope = position.length === scope.length + 2 && scope.every((value, i) => position[i] === value);
    if (!sameScope || typeof path !== 'string' || typeof fileId !== 'string') throw errors.validation('Invalid cursor');
    return [path, fileId];
  }
}
