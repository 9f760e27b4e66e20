import type { Queryable } from '@lode/db';
import type { FilesRepository } from '../repo/files-repo.ts';
import type { ObliterateRepository, PurgeRecord } from '../repo/obliterate-repo.ts';
import type { CollectableRepository } from '../repo/collectable-repo.ts';
import type { PlannedVersion } from './obliterate-plan.ts';

/**
 * What every purge of versions does, whoever asks (an obliteration, a retention batch): one purge
 * of the project at a time, the files' rows locked, the versions purged with the usage delta, and
 * the objects nothing else keeps marked for the collector, which deletes them after its grace.
 */
export class VersionPurger {
  readonly #files: FilesRepository;
  readonly #repo: ObliterateRepository;
  readonly #collectable: CollectableRepository;

  constructor(deps: { files: FilesRepository; obliterations: ObliterateRepository; collectable: CollectableRepository }) {
    this.#files = deps.files;
    this.#repo = deps.obliterations;
    this.#collectable = deps.collectable;
  }

  /** Takes the project's purge lock, then the files' row locks (a confirm or restore of one of them waits). */
  async lock(tx: Queryable, projectId: string, fileIds: readonly string[]): Promise<void> {
    await this.#repo.lockProject(tx, projectId);
    await this.#files.lockFiles(tx, projectId, fileIds);
  }

  /** The versions' objects that stay: another live version uses them, or they are Git LFS objects. */
  async kept(q: Queryable, projectId: string, versions: readonly PlannedVersion[]): Promise<Set<string>> {
    const objects = [...new Map(versions.map((v) => [v.storageKey, v])).values()];
    return this.#repo.keptObjects(
      q,
      projectId,
      objects,
      versions.map((v) => v.id),
    );
  }

  /** Purges the versions (after lock, in its transaction) and marks what they free; answers when, and the objects kept. */
  async purge(tx: Queryable, projectId: string, versions: readonly PlannedVersion[], record: PurgeRecord): Promise<{ at: string; kept: Set<string> }> {
    const kept = await this.kept(tx, projectId, versions);
    const { at } = await this.#repo.purge(
      tx,
      projectId,
      versions.map((v) => v.id),
      record,
    );
    const freed = new Map(versions.filter((v) => !kept.has(v.storageKey)).map((v) => [v.storageKey, v]));
    await this.#collectable.mark(
      tx,
      [...freed.values()].map(({ storageKey, sha256, size }) => ({ storageKey, projectId, sha256, size })),
    );
    return { at, kept };
  }
}
