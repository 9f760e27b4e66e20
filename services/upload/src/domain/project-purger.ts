import type { Database } from '@lode/db';
import { mapConcurrently, type BlobStorage } from '@lode/storage';
import type { Logger } from '@lode/telemetry';
import type { ProjectPurgeRepository } from '../repo/project-purge-repo.ts';
import { projectKeyPrefix } from './upload-service.ts';

/** Store calls in flight at once while aborting a project's open multipart uploads. */
const ABORTS_IN_FLIGHT = 8;

/**
 * Removes a purged project from the upload service: the multipart uploads the store holds open for
 * it are aborted, every object under its key prefix deleted (blobs, reservations' objects, Git LFS
 * objects, frozen copies: all of them live under it), then its rows, in batches. Storage first: the
 * rows are what finds the open uploads, and no storage call runs inside a transaction. Each step
 * is idempotent, so a purge interrupted anywhere is finished by running it again.
 */
export class ProjectPurger {
  readonly #db: Database;
  readonly #repo: ProjectPurgeRepository;
  readonly #storage: BlobStorage;
  readonly #logger: Logger;

  constructor(deps: { db: Database; repo: ProjectPurgeRepository; storage: BlobStorage; logger: Logger }) {
    this.#db = deps.db;
    this.#repo = deps.repo;
    this.#storage = deps.storage;
    this.#logger = deps.logger;
  }

  async purge(projectId: string): Promise<void> {
    const open = await this.#repo.openMultiparts(this.#db, projectId);
    await mapConcurrently(open, ABORTS_IN_FLIGHT, ({ key, uploadId }) => this.#storage.abortMultipart(key, uploadId));
    await this.#storage.deletePrefix(projectKeyPrefix(projectId));
    const deleted = await this.#repo.deleteRows(this.#db, projectId);
    this.#logger.info({ projectId, abortedUploads: open.length, deleted }, 'purged project objects and rows deleted');
  }
}
