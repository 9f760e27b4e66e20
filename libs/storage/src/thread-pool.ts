import { Worker } from 'node:worker_threads';

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

/**
 * A worker thread and the work it has in hand, by id: held (ref'd) only while it has any, so it
 * never keeps a process alive. If it dies, it tells its pool (`onLost`, once) and every piece of
 * work in hand fails with the reason (`fail`).
 */
export class PooledWorker<W> implements PooledThread {
  readonly worker: Worker;
  readonly #inHand = new Map<number, W>();

  /** `module`: the thread's body, a module of this package (`new URL('./<file>.ts', import.meta.url)`). */
  constructor(module: URL, name: string, fail: (work: W, error: Error) => void, onLost: () => void) {
    this.worker = new Worker(module);
    this.worker.unref();
    let lost = false;
    const die = (error: Error) => {
      if (lost) return;
      lost = true;
      onLost();
      for (const work of this.#inHand.values()) fail(work, error);
      this.#inHand.clear();
    };
    this.worker.on('error', die);
    this.worker.on('exit', (code) => die(new Error(`${name} exited (code ${code})`)));
  }

  get busy(): number {
    return this.#inHand.size;
  }

  inHand(id: number): W | undefined {
    return this.#inHand.get(id);
  }

  track(id: number, work: W): void {
    if (this.#inHand.size === 0) this.worker.ref();
    this.#inHand.set(id, work);
  }

  /** False if it was not in hand (already answered, or failed with the worker). */
  forget(id: number): boolean {
    const had = this.#inHand.delete(id);
    if (had && this.#inHand.size === 0) this.worker.unref();
    return had;
  }
}
