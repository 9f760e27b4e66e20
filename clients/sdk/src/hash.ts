import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { movesInParts, partPlanProblem, partSizeFor } from './parts.ts';

export interface ContentDigest {
  size: number;
  /** Hex SHA-256, as the API names content. */
  sha256: string;
  /**
   * Base64 MD5 of the whole file, as a single PUT's `Content-MD5` carries it. Absent for a file hashed
   * in parts: no URL signs a multipart file's whole MD5, so none is computed.
   */
  md5?: string;
  /** For a file hashed for a multipart upload: its part size and each part's MD5, in order. */
  parts?: PartDigests;
}

export interface PartDigests {
  partSize: number;
  /** Base64 MD5 of each part, part 1 first: what each part's `Content-MD5` carries. */
  md5s: string[];
}

/** A digest with a whole-file MD5: what hashFile answers without a multipart threshold. */
export type WholeDigest = ContentDigest & { md5: string };

export interface HashOptions {
  /**
   * A file of this size or more (or above a single PUT's 5 GiB) is hashed in parts, for a multipart
   * upload: its SHA-256 and each part's MD5 in one read, with no whole-file MD5. Without it every
   * file gets a whole-file MD5, as a single PUT needs.
   */
  multipartThreshold?: number;
}

/** Bytes read per piece: one reused buffer per worker, so memory stays flat whatever the file's size. */
const PIECE = 1024 * 1024;
/** From this size a file's SHA-256 and MD5 go to two workers at once: a large file alone then takes the time of its MD5, not of both. */
const SPLIT_FROM = 32 * 1024 * 1024;
/**
 * Tasks a worker is given at once. With one, a worker hashing small files finishes each before the
 * main thread hands it the next, and sits idle between files; the rest wait in its queue.
 */
const TASKS_PER_WORKER = 4;

type Algorithm = 'sha256' | 'md5';

/** A file that changed size while it was hashed in parts is hashed again, this many times in all. */
const PART_HASH_ATTEMPTS = 3;

/** Made on the first hash: a command whose hashes are all cached starts no worker. */
let pool: HashPool | undefined;

/**
 * SHA-256 and MD5 of a file, in a pool of worker threads (one per core, at most 4): hashing is CPU
 * the main thread would otherwise spend while the other cores idle.
 * `sizeHint` (the size a stat saw) lets a large file's two hashes run on two workers at once.
 */
export function hashFile(filePath: string, signal?: AbortSignal, sizeHint?: number): Promise<WholeDigest>;
export function hashFile(filePath: string, signal: AbortSignal | undefined, sizeHint: number | undefined, options: HashOptions): Promise<ContentDigest>;
export async function hashFile(filePath: string, signal?: AbortSignal, sizeHint?: number, options: HashOptions = {}): Promise<ContentDigest> {
  signal?.throwIfAborted();
  pool ??= new HashPool(Math.max(1, Math.min(availableParallelism(), 4)));
  const threshold = options.multipartThreshold;
  if (threshold !== undefined) {
    let size = sizeHint ?? (await stat(filePath)).size;
    for (let attempt = 1; movesInParts(size, threshold); attempt++) {
      const digest = await hashInParts(pool, filePath, partSizeFor(size), signal);
      // The part size follows from the size a stat saw; a file that changed since then is hashed again.
      if ((movesInParts(digest.size, threshold) && digest.parts && partSizeFor(digest.size) === digest.parts.partSize) || attempt >= PART_HASH_ATTEMPTS)
        return digest;
      size = digest.size;
    }
  }
  if (sizeHint !== undefined && sizeHint >= SPLIT_FROM && pool.size > 1) {
    const [sha, md5] = await Promise.all([pool.run(filePath, ['sha256'], signal), pool.run(filePath, ['md5'], signal)]);
    // Two reads of a file that changed meanwhile may disagree: hash it again, in one read.
    if (sha.size === md5.size) return { size: sha.size, sha256: sha.digests[0], md5: md5.digests[0] };
  }
  const both = await pool.run(filePath, ['sha256', 'md5'], signal);
  return { size: both.size, sha256: both.digests[0], md5: both.digests[1] };
}

/**
 * SHA-256 and each part's MD5 in one read of the file: a large file is read once, however many
 * digests it needs. A file that turns out too small for parts gets a whole-file MD5 instead (its
 * single part's MD5 is that).
 */
async function hashInParts(pool: HashPool, filePath: string, partSize: number, signal?: AbortSignal): Promise<ContentDigest> {
  const hashed = await pool.run(filePath, ['sha256'], signal, partSize);
  const md5s = hashed.partMd5s ?? [];
  const digest: ContentDigest = { size: hashed.size, sha256: hashed.digests[0] };
  if (partPlanProblem(hashed.size, partSize, md5s.length) === undefined) digest.parts = { partSize, md5s };
  if (md5s.length === 1 && hashed.size <= partSize) digest.md5 = md5s[0];
  return digest;
}

/** The SHA-256 and size of a file, nothing else (a download's check of what it wrote). */
export async function sha256OfFile(filePath: string, signal?: AbortSignal): Promise<{ size: number; sha256: string }> {
  signal?.throwIfAborted();
  pool ??= new HashPool(Math.max(1, Math.min(availableParallelism(), 4)));
  const hashed = await pool.run(filePath, ['sha256'], signal);
  return { size: hashed.size, sha256: hashed.digests[0] };
}

/**
 * The worker's code, as a string (`eval`), so that it runs unchanged from the TypeScript sources and
 * from the built package. Synchronous reads are right here: they block this worker only, and spare
 * the main thread's event loop a round trip to libuv's thread pool per piece.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { openSync, readSync, closeSync } = require('node:fs');
const piece = Buffer.allocUnsafe(${PIECE});
parentPort.on('message', ({ id, path, algorithms, partSize }) => {
  let fd;
  try {
    fd = openSync(path, 'r');
    const hashes = algorithms.map((a) => createHash(a));
    // With a part size, each part's MD5 too, from the same pieces: no read stops across a part's end.
    const partMd5s = partSize ? [] : undefined;
    let part = partSize ? createHash('md5') : undefined;
    let inPart = 0;
    let size = 0;
    for (let n; (n = readSync(fd, piece, 0, partSize ? Math.min(piece.length, partSize - inPart) : piece.length, null)) > 0; size += n) {
      const bytes = n === piece.length ? piece : piece.subarray(0, n);
      for (const h of hashes) h.update(bytes);
      if (part) {
        part.update(bytes);
        inPart += n;
        if (inPart === partSize) {
          partMd5s.push(part.digest('base64'));
          part = createHash('md5');
          inPart = 0;
        }
      }
    }
    if (part && inPart > 0) partMd5s.push(part.digest('base64'));
    parentPort.postMessage({ id, size, partMd5s, digests: hashes.map((h, i) => h.digest(algorithms[i] === 'md5' ? 'base64' : 'hex')) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code, errno: error.errno, syscall: error.syscall, path: error.path } });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
});
`;

interface Hashed {
  size: number;
  digests: string[];
  /** Each part's Base64 MD5, when a part size was asked for. */
  partMd5s?: string[];
}

interface Task {
  id: number;
  path: string;
  algorithms: Algorithm[];
  partSize: number | undefined;
  resolve: (hashed: Hashed) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Given to the worker and not answered yet, by id: the worker answers them in order. */
  tasks: Map<number, Task>;
}

type Reply = { id: number; size: number; digests: string[]; partMd5s?: string[] } | { id: number; error: Record<string, unknown> & { message: string } };

/**
 * A FIFO of hash tasks over a few workers, each given up to TASKS_PER_WORKER at once. Idle workers
 * are unref'd, so a CLI whose work is done exits without closing the pool; a busy one holds the
 * process open until its answers arrive.
 */
class HashPool {
  readonly size: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Task[] = [];
  #nextId = 0;

  constructor(size: number) {
    this.size = size;
  }

  run(filePath: string, algorithms: Algorithm[], signal?: AbortSignal, partSize?: number): Promise<Hashed> {
    return new Promise<Hashed>((resolve, reject) => {
      const onAbort = () => {
        // The worker finishes its read regardless; its answer is ignored.
        const queued = this.#queue.indexOf(task);
        if (queued >= 0) this.#queue.splice(queued, 1);
        reject(signal?.reason as Error);
      };
      const done = () => signal?.removeEventListener('abort', onAbort);
      const task: Task = {
        id: this.#nextId++,
        path: filePath,
        algorithms,
        partSize,
        resolve: (hashed) => (done(), resolve(hashed)),
        reject: (error) => (done(), reject(error)),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(task);
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      // An idle worker first, then a new one, then the least busy with room.
      let slot = this.#slots.find((s) => s.tasks.size === 0);
      if (!slot && this.#slots.length < this.size) slot = this.#spawn();
      slot ??= this.#slots.reduce((least, s) => (s.tasks.size < least.tasks.size ? s : least));
      if (slot.tasks.size >= TASKS_PER_WORKER) return;
      const task = this.#queue.shift() as Task;
      if (slot.tasks.size === 0) slot.worker.ref();
      slot.tasks.set(task.id, task);
      slot.worker.postMessage({ id: task.id, path: task.path, algorithms: task.algorithms, partSize: task.partSize });
    }
  }

  #spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    const slot: Slot = { worker, tasks: new Map() };
    this.#slots.push(slot);
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const task = slot.tasks.get(reply.id);
      slot.tasks.delete(reply.id);
      if (slot.tasks.size === 0) worker.unref();
      if (task) {
        if ('error' in reply) task.reject(Object.assign(new Error(reply.error.message), reply.error));
        else task.resolve({ size: reply.size, digests: reply.digests, partMd5s: reply.partMd5s });
      }
      this.#dispatch();
    });
    const lost = (error: Error) => {
      const index = this.#slots.indexOf(slot);
      if (index < 0) return;
      this.#slots.splice(index, 1);
      for (const task of slot.tasks.values()) task.reject(error);
      slot.tasks.clear();
      this.#dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`hash worker exited (code ${code})`)));
    return slot;
  }
}
