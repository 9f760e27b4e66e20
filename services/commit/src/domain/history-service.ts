import { errors } from '@lode/errors';
import { storage, upload, type Actor, type commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { CursorCodec, Database } from '@lode/db';
import type { HistoryRepository } from '../repo/history-repo.ts';
import type { DownloadLinks } from './download-links.ts';

/** A file's committed versions on main, newest first, keyset-paginated, with download URLs. */
export class HistoryService {
  readonly #db: Database;
  readonly #bus: Bus;
  readonly #history: HistoryRepository;
  readonly #links: DownloadLinks;
  readonly #cursors: CursorCodec;

  constructor(deps: { db: Database; bus: Bus; history: HistoryRepository; links: DownloadLinks; cursors: CursorCodec }) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#history = deps.history;
    this.#links = deps.links;
    this.#cursors = deps.cursors;
  }

  async list(actor: Actor, fileId: string, cursor: string | undefined, limit: number): Promise<{ data: commit.FileVersion[]; nextCursor: string | null }> {
    const before = cursor === undefined ? undefined : this.#decode(cursor, fileId);
    const rows = await this.#history.mainVersions(this.#db, actor.projectId, fileId, before, limit + 1);
    // No committed version yet: the file may still exist (uploaded, not committed) or belong elsewhere.
    if (rows.length === 0 && before === undefined) await this.#requireFile(actor.projectId, fileId);
    const page = rows.slice(0, limit);
    const purging = this.#purges(actor.projectId, fileId, page);
    // Signing is local arithmetic: the page's URLs are signed while the purges' call is out. One turn
    // of the microtask queue first, in which the bus sends the request it queued.
    await Promise.resolve();
    const [purges, urls] = await Promise.all([purging, Promise.all(page.map((row) => this.#links.sign(row.storageKey, row.path)))]);
    const data = page.map((row, i) => ({
      id: row.id,
      version: row.version,
      size: row.size,
      sha256: row.sha256,
      uploaderId: row.uploaderId,
      uploaderName: row.uploaderName,
      commitId: row.commitId,
      // An obliterated version stays in the history, shown as removed, with nothing to download.
      downloadUrl: purges[i] ? null : urls[i],
      createdAt: row.createdAt,
      purged: purges[i],
    }));
    const last = page.at(-1);
    return { data, nextCursor: rows.length > limit && last ? this.#cursors.encode([fileId, last.version]) : null };
  }

  /** Which of the page's versions were obliterated: the upload service owns versions, and answers the page in one call. */
  async #purges(projectId: string, fileId: string, page: readonly { version: number }[]): Promise<(storage.Purge | null)[]> {
    if (page.length === 0) return [];
    const { purges } = await this.#bus.call(storage.purgedVersions, { projectId, fileIds: page.map(() => fileId), versions: page.map((row) => row.version) });
    return purges;
  }

  /** A cursor names its file, so one file's cursor cannot page through another's history. */
  #decode(cursor: string, fileId: string): number {
    const [cursorFile, version] = this.#cursors.decode(cursor);
    if (cursorFile !== fileId || typeof version !== 'number') throw errors.validation('Invalid cursor');
    return version;
  }

  async #requireFile(projectId: string, fileId: string): Promise<void> {
    const { paths } = await this.#bus.call(upload.resolveVersions, { projectId, fileIds: [fileId] });
    if (typeof paths[0] !== 'string') throw errors.notFound('File');
  }
}
