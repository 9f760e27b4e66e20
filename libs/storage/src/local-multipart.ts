import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { mapConcurrently } from './concurrency.ts';
import { isLaterPart, MULTIPART_KEY_FILE, parsePartFileName, PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE, UPLOAD_ID_PATTERN } from './local-layout.ts';
import type { LocalBlobStorage } from './local-storage.ts';
import { checkPartsToJoin, noSuchUpload, partNotHeld } from './multipart-rules.ts';
import type { JoinReply, JoinRequest } from './part-joiner-thread.ts';
import type { OpenMultipartUpload, StoredPart } from './storage.ts';
import { isValidStorageKey } from './storage.ts';
import { PooledWorker, ThreadPool } from './thread-pool.ts';

/** Files stat'ed at once when listing: a listing of 1,000 parts must not open 1,000 requests to libuv's pool at once. */
const STATS_IN_FLIGHT = 32;
/** Uploads answered per page of listMultipartUploads. */
const UPLOADS_PER_PAGE = 1000;

/**
 * The local driver's multipart uploads (the layout is in local-layout.ts; the part PUTs are the
 * object handler's, local-http.ts). Completing joins the parts into a sealed object in a worker
 * thread (part-joiner-thread.ts), then removes the upload's folder.
 */
export class LocalMultipart {
  readonly #storage: LocalBlobStorage;
  /** Completes under way in this process, by upload id: a second call waits for the first instead of joining the bytes again. */
  readonly #completing = new Map<string, Promise<void>>();

  constructor(storage: LocalBlobStorage) {
    this.#storage = storage;
  }

  /** The folder is made whole under incoming/ and renamed into place: no upload folder is ever without its key. */
  async create(key: string): Promise<string> {
    if (!isValidStorageKey(key)) throw new Error(`Invalid storage key ${key}`);
    const uploadId = randomUUID();
    const staging = this.#storage.incomingPath(randomUUID());
    await mkdir(staging, { mode: PRIVATE_DIRECTORY_MODE });
    try {
      await writeFile(path.join(staging, MULTIPART_KEY_FILE), key, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      await rename(staging, this.#storage.uploadPath(uploadId));
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
    return uploadId;
  }

  /** The key an open upload is for; null when there is no such upload (completed, aborted, or no upload id of ours). */
  async owner(uploadId: string): Promise<string | null> {
    if (!UPLOAD_ID_PATTERN.test(uploadId)) return null;
    return readFile(path.join(this.#storage.uploadPath(uploadId), MULTIPART_KEY_FILE), 'utf8').catch(ignoreMissing);
  }

  /** Where two bodies of one part number are stored at once (a re-PUT being renamed in), the later one is the part, as the PUT handler decides. */
  async listParts(key: string, uploadId: string): Promise<StoredPart[] | null> {
    if ((await this.owner(uploadId)) !== key) return null;
    const folder = this.#storage.uploadPath(uploadId);
    const names = await readdir(folder).catch(ignoreMissing);
    if (names === null) return null;
    const candidates = names.flatMap((name) => {
      const parsed = parsePartFileName(name);
      return parsed ? [{ name, ...parsed }] : [];
    });
    const stats = await mapConcurrently(candidates, STATS_IN_FLIGHT, (c) => stat(path.join(folder, c.name), { bigint: true }).catch(ignoreMissing));
    const parts = new Map<number, { name: string; ctimeNs: bigint; part: StoredPart }>();
    candidates.forEach((c, i) => {
      const found = stats[i];
      if (!found) return;
      const held = { name: c.name, ctimeNs: found.ctimeNs, part: { partNumber: c.partNumber, size: Number(found.size), etag: `"${c.md5Hex}"` } };
      const other = parts.get(c.partNumber);
      if (!other || isLaterPart(held, other)) parts.set(c.partNumber, held);
    });
    return [...parts.values()].map(({ part }) => part).sort((a, b) => a.partNumber - b.partNumber);
  }

  async complete(key: string, uploadId: string, parts: readonly StoredPart[]): Promise<void> {
    checkPartsToJoin(parts);
    const under = this.#completing.get(uploadId);
    if (under) return under;
    const completing = this.#complete(key, uploadId, parts).finally(() => this.#completing.delete(uploadId));
    this.#completing.set(uploadId, completing);
    return completing;
  }

  /**
   * Safe to run twice at once, in two processes too: each joins into a temp file of its own, both
   * renames put the same bytes under the key, and a part removed under a join (the other finished)
   * is done when the object exists. A part listed but not held is `upload_incomplete`.
   */
  async #complete(key: string, uploadId: string, parts: readonly StoredPart[]): Promise<void> {
    const owner = await this.owner(uploadId);
    if (owner !== key) {
      if (owner === null && (await this.#storage.locate(key))) return;
      throw noSuchUpload();
    }
    // Joined already, by a call that has not removed the folder yet (or died before it did).
    if (await this.#storage.locate(key)) return this.#remove(uploadId);
    const folder = this.#storage.uploadPath(uploadId);
    const request: Omit<JoinRequest, 'id'> = {
      parts: parts.map((part) => ({ file: path.join(folder, this.#storage.partFileOf(part)), size: part.size })),
      temp: this.#storage.incomingPath(randomUUID()),
      target: this.#storage.sealedPath(key),
    };
    const reply = await joiners().join(request);
    if ('error' in reply) throw new Error(`Joining the parts of upload ${uploadId} failed: ${reply.error}`);
    if (reply.outcome !== 'joined') {
      if (reply.outcome === 'missing_part' && (await this.#storage.locate(key))) return;
      throw partNotHeld(parts[reply.partIndex]?.partNumber);
    }
    await this.#remove(uploadId);
  }

  /** Another key's upload of this id is not this caller's to drop: left alone, as S3 would. */
  async abort(key: string, uploadId: string): Promise<void> {
    if ((await this.owner(uploadId)) !== key) return;
    await this.#remove(uploadId);
  }

  /**
   * Renamed out of multipart/ first, then removed: a part being renamed into the folder meanwhile
   * finds it gone (the PUT answers 404) instead of landing in a folder half removed.
   */
  async #remove(uploadId: string): Promise<void> {
    const doomed = this.#storage.incomingPath(randomUUID());
    try {
      await rename(this.#storage.uploadPath(uploadId), doomed);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    await rm(doomed, { recursive: true, force: true });
  }

  /** Begun when its key file was written (the folder's own time moves with every part). */
  async *listUploads(before: Date): AsyncIterable<OpenMultipartUpload[]> {
    const root = this.#storage.uploadPath();
    const ids = ((await readdir(root).catch(ignoreMissing)) ?? []).filter((name) => UPLOAD_ID_PATTERN.test(name)).sort();
    for (let at = 0; at < ids.length; at += UPLOADS_PER_PAGE) {
      const found = await mapConcurrently(ids.slice(at, at + UPLOADS_PER_PAGE), STATS_IN_FLIGHT, async (uploadId) => {
        const keyFile = path.join(root, uploadId, MULTIPART_KEY_FILE);
        const found = await Promise.all([readFile(keyFile, 'utf8'), stat(keyFile)]).catch(ignoreMissing);
        return found && found[1].mtime < before ? [{ key: found[0], uploadId, initiated: found[1].mtime }] : [];
      });
      const open = found.flat();
      if (open.length > 0) yield open;
    }
  }
}

interface PendingJoin {
  resolve: (reply: JoinReply) => void;
}

const JOINER = new URL('./part-joiner-thread.ts', import.meta.url);

class Joiner extends PooledWorker<PendingJoin> {
  constructor(onLost: (joiner: Joiner) => void) {
    super(
      JOINER,
      'storage part joiner',
      (pending, error) => pending.resolve({ id: -1, error: error.message }),
      () => onLost(this),
    );
    this.worker.on('message', (reply: JoinReply) => {
      const pending = this.inHand(reply.id);
      if (!pending) return;
      this.forget(reply.id);
      pending.resolve(reply);
    });
  }

  join(request: JoinRequest): Promise<JoinReply> {
    return new Promise((resolve) => {
      this.track(request.id, { resolve });
      this.worker.postMessage(request);
    });
  }
}

class JoinerPool {
  // Joining is mostly disk and hashing: two at once use the disk well and leave the cores to the
  // writers and the API.
  readonly #joiners = new ThreadPool<Joiner>(Math.max(1, Math.min(availableParallelism(), 2)), (lost) => new Joiner(lost));
  #nextId = 0;

  join(request: Omit<JoinRequest, 'id'>): Promise<JoinReply> {
    return this.#joiners.pick().join({ ...request, id: this.#nextId++ });
  }
}

let pool: JoinerPool | undefined;

/** Made on the first complete: a process that completes no upload starts no thread. */
function joiners(): JoinerPool {
  pool ??= new JoinerPool();
  return pool;
}

function ignoreMissing(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}
