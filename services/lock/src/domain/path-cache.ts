/**
 * Paths of files the upload service has named to this process, per project. A file never changes
 * project or path (the upload service only ever moves its tip version), so an entry never goes stale
 * and a lock request for known files needs no call to the upload service. Only files found are kept:
 * an unknown id is asked again. The size is bounded by dropping the oldest entries first.
 */
export class PathCache {
  readonly #max: number;
  readonly #paths = new Map<string, string>();

  constructor(max = 50_000) {
    this.#max = max;
  }

  get(projectId: string, fileId: string): string | undefined {
    return this.#paths.get(`${projectId}/${fileId}`);
  }

  set(projectId: string, fileId: string, path: string): void {
    this.#paths.set(`${projectId}/${fileId}`, path);
    if (this.#paths.size > this.#max) this.#paths.delete(this.#paths.keys().next().value ?? '');
  }
}
