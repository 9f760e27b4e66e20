import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat, readFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import type { BlobStorage, ObjectInfo, PresignedPut, PresignGetInput, PresignPutInput } from './storage.ts';
import { isValidStorageKey } from './storage.ts';
import { mapConcurrently } from './concurrency.ts';
import { sign } from './local-signing.ts';

export interface LocalStorageOptions {
  /** Root directory; objects live under <dir>/objects, partial uploads under <dir>/incoming. */
  dir: string;
  /** HMAC secret shared by whoever signs (upload service) and whoever serves (gateway). */
  secret: string;
  /** Base URL clients reach the gateway at, e.g. http://localhost:8080. */
  publicUrl: string;
}

export const LOCAL_OBJECTS_ROUTE = '/storage/v1/objects/';

/** Objects checked at once: each holds two descriptors, far below the usual limit of 1,024. */
const HEADS_IN_FLIGHT = 32;

/**
 * Blobs on local disk behind HMAC-signed URLs that the gateway's HTTP server answers. The PUT
 * handler verifies length, MD5 and SHA-256 before an object appears under its key, so an object
 * that exists always holds exactly the bytes its reservation declared.
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
    try {
      const [info, sha256] = await Promise.all([stat(this.objectPath(key)), readFile(this.shaPath(key), 'utf8')]);
      return { size: info.size, verifiedSha256: sha256 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** A head per key: the sidecar's verified SHA-256 is only on disk, one file per object. */
  async headMany(keys: readonly string[]): Promise<(ObjectInfo | null)[]> {
    return mapConcurrently(keys, HEADS_IN_FLIGHT, (key) => this.head(key));
  }

  async computeSha256(key: string): Promise<string> {
    const hash = createHash('sha256');
    await pipeline(createReadStream(this.objectPath(key)), hash);
    return hash.digest('hex');
  }

  async delete(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.flatMap((key) => [rm(this.objectPath(key), { force: true }), rm(this.shaPath(key), { force: true })]));
  }

  async ensureReady(): Promise<void> {
    await mkdir(path.join(this.options.dir, 'objects'), { recursive: true });
    await mkdir(path.join(this.options.dir, 'incoming'), { recursive: true });
  }

  objectPath(key: string): string {
    if (!isValidStorageKey(key)) throw new Error(`Invalid storage key ${key}`);
    return path.join(this.options.dir, 'objects', key);
  }

  /** The verified SHA-256 is written beside the object, after the object itself. */
  shaPath(key: string): string {
    return `${this.objectPath(key)}.sha256`;
  }

  incomingPath(name: string): string {
    return path.join(this.options.dir, 'incoming', name);
  }
}
