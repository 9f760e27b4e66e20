/** A worker-thread wrapper a pool can choose by how much it has in hand. */
export interface PooledThread {
  /** Work handed to it and not yet answered. */
  readonly busy: number;
}

/**
 * Threads started on demand, up to `size`: an idle one if there is one, else a new one while there
 * are fewer than `size`, else the least busy. A thread that dies leaves the pool through the
 * `lost` callback its maker is given, and the next pick starts another.
 */
export class ThreadPool<T extends PooledThread> {
  readonly #threads: T[] = [];
  readonly #size: number;
  readonly #start: (lost: (thread: T) => void) => T;

  constructor(size: number, start: (lost: (thread: T) => void) => T) {
    this.#size = size;
    this.#start = start;
  }

  pick(): T {
    const idle = this.#threads.find((t) => t.busy === 0);
    if (idle) return idle;
    if (this.#threads.length < this.#size) {
      const thread = this.#start((lost) => {
        const index = this.#threads.indexOf(lost);
        if (index >= 0) this.#threads.splice(index, 1);
      });
      this.#threads.push(thread);
      return thread;
    }
    return this.#threads.reduce((a, b) => (b.busy < a.busy ? b : a));
  }
}
