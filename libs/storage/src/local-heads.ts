import { availableParallelism } from 'node:os';
import type { HeadReply, HeadRequest } from './head-reader-thread.ts';
import type { ObjectInfo } from './storage.ts';
import { PooledWorker, ThreadPool } from './thread-pool.ts';

/** Every local object carries the SHA-256 the PUT handler verified. */
export type LocalHead = ObjectInfo & { verifiedSha256: string };

/** An object's files in both layouts: sealed (header, then bytes), and the earlier bytes-and-sidecar. */
export interface ObjectFiles {
  sealed: string;
  legacy: string;
  sidecar: string;
}

/**
 * Reads heads (size and verified SHA-256) in worker threads (head-reader-thread.ts), with synchronous
 * file calls. A head is open, read, fstat and close: four round trips to libuv's thread pool from
 * the event loop, whose promises cost the upload service's (in embedded mode, the gateway's) event
 * loop more than the calls themselves, 2,000 at a time when a push confirms. Here a batch costs the
 * event loop one message.
 */
const READER = new URL('./head-reader-thread.ts', import.meta.url);

/** Keys per message: a large batch (a restore's 25,000) is spread over the readers. */
const SLICE = 256;

interface Pending {
  resolve: (heads: (LocalHead | null)[]) => void;
  reject: (error: Error) => void;
}

class Reader extends PooledWorker<Pending> {
  constructor(onLost: (reader: Reader) => void) {
    super(
      READER,
      'storage head reader',
      (waiting, error) => waiting.reject(error),
      () => onLost(this),
    );
    this.worker.on('message', (reply: HeadReply) => {
      const waiting = this.inHand(reply.id);
      if (!waiting) return;
      this.forget(reply.id);
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.heads);
    });
  }

  ask(id: number, objects: ObjectFiles[]): Promise<(LocalHead | null)[]> {
    return new Promise((resolve, reject) => {
      this.track(id, { resolve, reject });
      this.worker.postMessage({ id, objects } satisfies HeadRequest);
    });
  }
}

class ReaderPool {
  readonly #readers = new ThreadPool<Reader>(Math.max(1, Math.min(availableParallelism(), 4)), (lost) => new Reader(lost));
  #nextId = 0;

  async heads(objects: readonly ObjectFiles[]): Promise<(LocalHead | null)[]> {
    const slices: Promise<(LocalHead | null)[]>[] = [];
    for (let at = 0; at < objects.length; at += SLICE) slices.push(this.#readers.pick().ask(this.#nextId++, objects.slice(at, at + SLICE)));
    return (await Promise.all(slices)).flat();
  }
}

let pool: ReaderPool | undefined;

/** Made on the first head: a process that never heads a local object starts no thread. */
export function readHeads(objects: readonly ObjectFiles[]): Promise<(LocalHead | null)[]> {
  pool ??= new ReaderPool();
  return pool.heads(objects);
}
