/**
 * Wakes syncs waiting for the read model to catch up as soon as this process applies a commit.
 * Another replica may apply it instead, so waiters also give up waiting after a short poll interval.
 */
export class AppliedSignal {
  readonly #waiters = new Set<() => void>();

  notify(): void {
    for (const wake of this.#waiters) wake();
  }

  /** Resolves on the next notify() or after timeoutMs, whichever comes first. */
  next(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      this.#waiters.add(wake);
    });
  }
}
