import { availableParallelism } from 'node:os';
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

/** The sealed header: this prefix, 64 hex digits of SHA-256, a newline. */
const HEADER_PREFIX = 'lode sha256 ';
export const SEALED_HEADER_BYTES = HEADER_PREFIX.length + 64 + 1;

/**
 * A sealed object's file starts with this line, then holds the object's bytes: its verified SHA-256
 * travels in the one file, so storing an object creates one inode instead of two (the object and a
 * `.sha256` sidecar, as earlier versions wrote them): creating a file costs up to 0.75 ms of kernel
 * time on some disks, the largest part of storing a small object. Reads start after it.
 */
export function sealedHeader(sha256: string): string {
  return `${HEADER_PREFIX}${sha256}\n`;
}

/**
 * Reads heads (size and verified SHA-256) in worker threads, with synchronous file calls. A head is
 * open, read, fstat and close: four round trips to libuv's thread pool from the event loop, whose
 * promises cost the upload service's (in embedded mode, the gateway's) event loop more than the calls
 * themselves, 2,000 at a time when a push confirms. Here a batch costs the event loop one message.
 * A sealed file appears only by a rename after it was written whole, so a bad header is corruption.
 */
const READER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const PREFIX = ${JSON.stringify(HEADER_PREFIX)};
const HEADER = ${SEALED_HEADER_BYTES};
const header = Buffer.alloc(HEADER);
function missing(error) {
  if (error.code !== 'ENOENT') throw error;
  return null;
}
function sealed(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    return missing(error);
  }
  try {
    const n = fs.readSync(fd, header, 0, HEADER, 0);
    const text = header.toString('latin1', 0, n);
    const sha256 = text.slice(PREFIX.length, -1);
    if (n !== HEADER || !text.startsWith(PREFIX) || !text.endsWith('\\n') || !/^[0-9a-f]{64}$/.test(sha256)) throw new Error('Corrupt object header in ' + file);
    return { size: fs.fstatSync(fd).size - HEADER, verifiedSha256: sha256 };
  } finally {
    fs.closeSync(fd);
  }
}
function legacy(object, sidecar) {
  try {
    const size = fs.statSync(object).size;
    return { size, verifiedSha256: fs.readFileSync(sidecar, 'utf8') };
  } catch (error) {
    return missing(error);
  }
}
parentPort.on('message', ({ id, objects }) => {
  try {
    parentPort.postMessage({ id, heads: objects.map((o) => sealed(o.sealed) ?? legacy(o.legacy, o.sidecar)) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message) });
  }
});
`;

/** Keys per message: a large batch (a restore's 25,000) is spread over the readers. */
const SLICE = 256;

type Reply = { id: number; heads: (LocalHead | null)[] } | { id: number; error: string };

interface Pending {
  resolve: (heads: (LocalHead | null)[]) => void;
  reject: (error: Error) => void;
}

class Reader extends PooledWorker<Pending> {
  constructor(onLost: (reader: Reader) => void) {
    super(READER_SOURCE, 'storage head reader', (waiting, error) => waiting.reject(error), () => onLost(this));
    this.worker.on('message', (reply: Reply) => {
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
      this.worker.postMessage({ id, objects });
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
