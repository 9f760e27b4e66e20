/**
 * Wakes feed reads waiting in this process when one of their project's events is recorded here.
 * Reads on another replica see it at their next look (FeedService's recheck interval).
 */
export class FeedSignal {
  readonly #waiting = new Map<string, Set<() => void>>();

  notify(projectId: string): void {
    const waiters = this.#waiting.get(projectId);
    if (!waiters) return;
    this.#waiting.delete(projectId);
    for (const wake of waiters) wake();
  }

  /** Resolves on the project's next event here or after ms, whichever comes first. */
  async wait(projectId: string, ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const waiters = this.#waiting.get(projectId) ?? new Set<() => void>();
      this.#waiting.set(projectId, waiters);
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.#waiting.get(projectId) === waiters) this.#waiting.delete(projectId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
    });
  }
}
