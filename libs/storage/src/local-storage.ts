import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import type { BlobStorage, ObjectInfo, PresignedPut, PresignGetInput, PresignPutInput } from './storage.ts';
import { isValidStorageKey } from './storage.ts';
import { mapConcurrently } from './concurrency.ts';
import { sign } from './local-signing.ts';

export interface LocalStorageOptions {
  /** Root directory; objects live under <dir>/sealed (earlier versions: <dir>/objects), partial uploads under <dir>/incoming. */
  dir: string;
  /** HMAC secret shared by whoever signs (upload service) and whoever serves (gateway). */
  secret: string;
  /** Base URL clients reach the gateway at, e.g. http://localhost:8080. */
  publicUrl: string;
}

export const LOCAL_OBJECTS_ROUTE = '/storage/v1/objects/';

/** Objects checked at once: each holds a descriptor or two, far below the usual limit of 1,024. */
const HEADS_IN_FLIGHT = 32;

/**
 * A sealed object's file starts with this line, then holds the object's bytes: its verified SHA-256
 * travels in the one file, so storing an object creates one inode instead of two (the object and a
 * `.sha256` sidecar, as earlier versions wrote them): creating a file costs up to 0.75 ms of kernel
 * time on some disks, the largest part of storing a small object.
 */
const HEADER_PREFIX = 'lode sha256 ';
/** The header's length: prefix, 64 hex digits, newline. Reads of the object start after it. */
export const SEALED_HEADER_BYTES = HEADER_PREFIX.length + 64 + 1;

export function sealedHeader(sha256: string): string {
  return `${HEADER_PREFIX}${sha256}\n`;
}

/** Where an object's bytes are: its file and the offset of its first byte in it. */
export interface StoredObject {
  file: string;
  offset: number;
  size: number;
}

/**
 * Blobs on local disk behind HMAC-signed URLs that the gateway's HTTP server answers. The PUT
 * handler verifies length, MD5 and SHA-256 before an object appears under its key, so an object
 * that exists always holds exactly the bytes its reservation declared.
 *
 * Objects are written sealed (`sealed/<key>`: a header with the verified SHA-256, then the bytes).
 * Data directories of earlier versions hold `objects/<key>` and `objects/<key>.sha256`: every read
 * falls back to that layout, so they need no migration.
 */
export class LocalBlobStorage implements BlobStorage {
  readonly driver = 'local' as const;
  readonly options: LocalStorageOptions;

  constructor(options: LocalStorageOptions) {
    this.options = { ...options, publicUrl: options.publicUrl.replace(/\/$/, '') };
  }

  async presignPut(input: PresignPutInput): Promise<PresignedPut> {
    const expires = Math.floor(Date.now() / 1000) + input.expiresInSeconds;
    const contentLength = String(input.size);
    const signature = sign(this.options.secret, {
      method: 'PUT', key: input.key, expires, contentLength, contentMd5: input.contentMd5, sha256: input.sha256,
    });
    const query = `expires=${expires}&sha256=${input.sha256}&signature=${signature}`;
    return {
      url: `${this.options.publicUrl}${LOCAL_OBJECTS_ROUTE}${input.key}?${query}`,
      headers: { 'Content-Length': contentLength, 'Content-MD5': input.contentMd5 },
    };
  }

  async presignGet(input: PresignGetInput): Promise<string> {
    const expires = Math.floor(Date.now() / 1000) + input.expiresInSeconds;
    const signature = sign(this.options.secret, { method: 'GET', key: input.key, expires });
    return `${this.options.publicUrl}${LOCAL_OBJECTS_ROUTE}${input.key}?expires=${expires}&signature=${signature}`;
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const sealed = await readSealedHeader(this.sealedPath(key));
    if (sealed) return sealed;
    try {
      const [info, sha256] = await Promise.all([stat(this.objectPath(key)), readFile(this.shaPath(key), 'utf8')]);
      return { size: info.size, verifiedSha256: sha256 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** A head per key: the verified SHA-256 is only on disk, in each object's file. */
  async headMany(keys: readonly string[]): Promise<(ObjectInfo | null)[]> {
    return mapConcurrently(keys, HEADS_IN_FLIGHT, (key) => this.head(key));
  }

  /** The object's file and where its bytes start in it, sealed or in the earlier layout; null if there is none. */
  async locate(key: string): Promise<StoredObject | null> {
    const sealedFile = this.sealedPath(key);
    const sealed = await stat(sealedFile).catch(ignoreMissing);
    if (sealed) return { file: sealedFile, offset: SEALED_HEADER_BYTES, size: sealed.size - SEALED_HEADER_BYTES };
    const legacyFile = this.objectPath(key);
    const legacy = await stat(legacyFile).catch(ignoreMissing);
    return legacy ? { file: legacyFile, offset: 0, size: legacy.size } : null;
  }

  async computeSha256(key: string): Promise<string> {
    const stored = await this.locate(key);
    if (!stored) throw Object.assign(new Error(`No object ${key}`), { code: 'ENOENT' });
    const hash = createHash('sha256');
    await pipeline(createReadStream(stored.file, { start: stored.offset }), hash);
    return hash.digest('hex');
  }

  async delete(keys: readonly string[]): Promise<void> {
    const files = keys.flatMap((key) => [this.sealedPath(key), this.objectPath(key), this.shaPath(key)]);
    await Promise.all(files.map((file) => rm(file, { force: true })));
  }

  async ensureReady(): Promise<void> {
    await mkdir(path.join(this.options.dir, 'sealed'), { recursive: true });
    await mkdir(path.join(this.options.dir, 'incoming'), { recursive: true });
  }

  /** Where the PUT handler stores an object, sealed with its verified SHA-256. */
  sealedPath(key: string): string {
    return this.#keyPath('sealed', key);
  }

  /**
   * The earlier layout, still read: the object's bytes alone, its verified SHA-256 in the sidecar
   * at shaPath, written after it. Tools that seed objects in bulk may still write it.
   */
  objectPath(key: string): string {
    return this.#keyPath('objects', key);
  }

  shaPath(key: string): string {
    return `${this.objectPath(key)}.sha256`;
  }

  #keyPath(root: string, key: string): string {
    if (!isValidStorageKey(key)) throw new Error(`Invalid storage key ${key}`);
    return path.join(this.options.dir, root, key);
  }

  incomingPath(name: string): string {
    return path.join(this.options.dir, 'incoming', name);
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}

/**
 * A sealed object's size and verified SHA-256 from its header; null when there is no sealed object.
 * A sealed file appears only by a rename after it was written whole, so a bad header is corruption.
 */
async function readSealedHeader(file: string): Promise<ObjectInfo | null> {
  const handle = await open(file, 'r').catch(ignoreMissing);
  if (!handle) return null;
  try {
    const header = Buffer.alloc(SEALED_HEADER_BYTES);
    const [info, { bytesRead }] = await Promise.all([handle.stat(), handle.read(header, 0, SEALED_HEADER_BYTES, 0)]);
    const text = header.toString('latin1', 0, bytesRead);
    const sha256 = text.slice(HEADER_PREFIX.length, -1);
    if (bytesRead !== SEALED_HEADER_BYTES || text !== sealedHeader(sha256) || !/^[0-9a-f]{64}$/.test(sha256)) {
      throw new Error(`Corrupt object header in ${file}`);
    }
    return { size: info.size - SEALED_HEADER_BYTES, verifiedSha256: sha256 };
  } finally {
    await handle.close();
  }
}
