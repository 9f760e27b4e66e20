import { errors } from '@lode/errors';
import { pathKey, storage, type Actor, type download } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import type { Bus } from '@lode/bus';
import type { Database } from '@lode/db';
import type { DownloadRow, DownloadsRepository } from '../repo/downloads-repo.ts';
import type { DownloadLinks } from './download-links.ts';
import { readEntries, type WantedFile } from './download-entries.ts';
import { MAIN_LINEAGE } from './lineage.ts';

/**
 * Batch download URLs (docs/api.md): the files a client names, resolved on a branch's committed tree
 * in one query, each presigned as the versions listing does. Each entry succeeds or fails alone. A
 * version obliterated since it was committed answers `version_purged`: the upload service, which
 * owns versions, says which are, in one call for the batch.
 */
export class DownloadService {
  readonly #db: Database;
  readonly #bus: Bus;
  readonly #downloads: DownloadsRepository;
  readonly #links: DownloadLinks;

  constructor(deps: { db: Database; bus: Bus; downloads: DownloadsRepository; links: DownloadLinks }) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#downloads = deps.downloads;
    this.#links = deps.links;
  }

  async urls(actor: Actor, branch: string | undefined, files: readonly unknown[]): Promise<download.DownloadResult[]> {
    const { wanted, malformed } = readEntries(files);
    const results = new Array<download.DownloadResult>(files.length);
    for (const entry of malformed) results[entry.index] = { ...named(entry), error: entry.error, code: 'validation_failed' };
    const onBranch = branch ?? MAIN_BRANCH;
    const { branchKnown, rows } = await this.#downloads.resolve(this.#db, actor.projectId, onBranch, MAIN_LINEAGE, wanted);
    if (!branchKnown) throw errors.notFound(`Branch "${onBranch}"`);
    const purges = await this.#purges(actor.projectId, rows);
    const expiresAt = this.#links.expiresAt(Date.now());
    await Promise.all(
      wanted.map(async (entry, i) => {
        results[entry.index] = await this.#result(entry, rows[i], purges[i], expiresAt);
      }),
    );
    return results;
  }

  /** Which resolved versions were obliterated, aligned with `rows`: one call for the whole batch, none when no row resolved a version. */
  async #purges(projectId: string, rows: readonly (DownloadRow | undefined)[]): Promise<(storage.Purge | null)[]> {
    const asked = rows.flatMap((row, i) => (row?.fileId && row.version !== null ? [{ i, fileId: row.fileId, version: row.version }] : []));
    const purges = new Array<storage.Purge | null>(rows.length).fill(null);
    if (asked.length === 0) return purges;
    const reply = await this.#bus.call(storage.purgedVersions, {
      projectId,
      fileIds: asked.map((a) => a.fileId),
      versions: asked.map((a) => a.version),
    });
    asked.forEach(({ i }, n) => (purges[i] = reply.purges[n] ?? null));
    return purges;
  }

  async #result(entry: WantedFile, row: DownloadRow | undefined, purge: storage.Purge | null, expiresAt: string): Promise<download.DownloadResult> {
    // An entry naming both an id and a path names one file: the id's, if it is at that path.
    if (!row?.fileId || row.path === null || (entry.pathKey !== null && pathKey(row.path) !== entry.pathKey)) {
      return { ...named(entry), error: 'No such file on this branch', code: 'not_found' };
    }
    const file = { fileId: row.fileId, path: row.path };
    if (row.version === null || row.sha256 === null || row.size === null || row.storageKey === null) {
      if (entry.version !== null) return { ...file, error: `Version ${entry.version} of this file is not on this branch`, code: 'version_not_found' };
      if (row.deleted) return { ...file, error: 'The file is deleted at the tip of this branch', code: 'deleted' };
      throw new Error(`The tip of file ${row.fileId} on a branch has no commit entry`);
    }
    if (purge) return { ...file, version: row.version, purgedAt: purge.at, error: errors.versionPurged(row.version, purge.at).message, code: 'version_purged' };
    return { ...file, version: row.version, sha256: row.sha256, size: row.size, downloadUrl: await this.#links.sign(row.storageKey, row.path), expiresAt };
  }
}

/** The id and path an entry named, as it named them: an unknown file's result reveals nothing more. */
function named(entry: { fileId?: string | null; path?: string | null }): { fileId?: string; path?: string } {
  return { ...(typeof entry.fileId === 'string' ? { fileId: entry.fileId } : {}), ...(typeof entry.path === 'string' ? { path: entry.path } : {}) };
}
