import { chmod, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type {
  BlobStorage,
  ObjectInfo,
  OpenMultipartUpload,
  PresignedPut,
  PresignGetInput,
  PresignPartInput,
  PresignPutInput,
  StoredContent,
  StoredPart,
} from './storage.ts';
import { assertKeyPrefix, isValidStorageKey } from './storage.ts';
import { readHeads, type ObjectFiles } from './local-heads.ts';
import { partFileName, PRIVATE_DIRECTORY_MODE, SEALED_HEADER_BYTES, UPLOAD_ID_PATTERN } from './local-layout.ts';
import { LocalMultipart } from './local-multipart.ts';
import { partField, sign, type SignedFields } from './local-signing.ts';
import { checkPartToSign, md5Hex } from './multipart-rules.ts';

export interface LocalStorageOptions {
  /**
   * Root directory; objects live under <dir>/sealed (earlier versions: <dir>/objects), partial uploads
   * under <dir>/incoming, open multipart uploads under <dir>/multipart.
   */
  dir: string;
  /** HMAC secret shared by whoever signs (upload service) and whoever serves (gateway). */
  secret: string;
  /** Base URL clients reach the gateway at, e.g. http://localhost:8080. */
  publicUrl: string;
}

export const LOCAL_OBJECTS_ROUTE = '/storage/v1/objects/';

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
 *
 * Multipart uploads keep their parts under `multipart/<uploadId>` (local-layout.ts) until they are
 * completed into a sealed object, whose SHA-256 is computed as the parts are joined.
 */
export class LocalBlobStorage implements BlobStorage {
  readonly driver = 'local' as const;
  readonly options: LocalStorageOptions;
  readonly #multipart: LocalMultipart;

  constructor(options: LocalStorageOptions) {
    this.options = { ...options, publicUrl: options.publicUrl.replace(/\/$/, '') };
    this.#multipart = new LocalMultipart(this);
  }

  async presignPut(input: PresignPutInput): Promise<PresignedPut> {
    // Without an MD5 the URL says so: the handler then reads none from the request (the signature,
    // made over an empty MD5, still fails for any URL that was signed with one).
    const md5 = input.contentMd5 === undefined ? '&md5=none' : '';
    return this.#signedPut(input, { sha256: input.sha256 }, `sha256=${input.sha256}${md5}`);
  }

  async presignGet(input: PresignGetInput): Promise<string> {
    const expires = Math.floor(Date.now() / 1000) + input.expiresInSeconds;
    const filename = input.filename || undefined;
    const signature = sign(this.options.secret, { method: 'GET', key: input.key, expires, filename });
    const named = filename === undefined ? '' : `&filename=${encodeURIComponent(filename)}`;
    return `${this.options.publicUrl}${LOCAL_OBJECTS_ROUTE}${input.key}?expires=${expires}${named}&signature=${signature}`;
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const [info] = await readHeads([this.#files(key)]);
    return info;
  }

  /** Read in worker threads: the verified SHA-256 is only on disk, in each object's file. */
  async headMany(keys: readonly string[]): Promise<(ObjectInfo | null)[]> {
    return readHeads(keys.map((key) => this.#files(key)));
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

  /** The PUT handler verified each object's SHA-256 and wrote it in the object's header: no byte is read again. */
  async contentMany(keys: readonly string[]): Promise<(StoredContent | null)[]> {
    const heads = await readHeads(keys.map((key) => this.#files(key)));
    return heads.map((head) => head && { size: head.size, sha256: head.verifiedSha256 });
  }

  /** Every PUT here was refused unless its body matched the SHA-256 its URL signed: the key itself is frozen. */
  async freeze(key: string): Promise<string | null> {
    return (await this.locate(key)) ? key : null;
  }

  createMultipart(key: string): Promise<string> {
    return this.#multipart.create(key);
  }

  /**
   * The objects route with the upload id and part number in the query, both signed with the part's
   * length and MD5; the PUT handler stores the part in its upload's folder.
   */
  async presignPart(input: PresignPartInput): Promise<PresignedPut> {
    checkPartToSign(input);
    if (!UPLOAD_ID_PATTERN.test(input.uploadId)) throw new Error(`Invalid upload id ${input.uploadId}`);
    const partNumber = String(input.partNumber);
    return this.#signedPut(input, { part: partField(input.uploadId, partNumber) }, `uploadId=${input.uploadId}&partNumber=${partNumber}`);
  }

  /**
   * A PUT URL of the objects route that signs the body's exact length and MD5 (if given) with
   * `signed`, `query` beside the expiry and signature; its required headers say the same length and MD5.
   */
  #signedPut(
    input: { key: string; size: number; contentMd5?: string | undefined; expiresInSeconds: number },
    signed: Pick<SignedFields, 'sha256' | 'part'>,
    query: string,
  ): PresignedPut {
    const expires = Math.floor(Date.now() / 1000) + input.expiresInSeconds;
    const contentLength = String(input.size);
    const signature = sign(this.options.secret, { method: 'PUT', key: input.key, expires, contentLength, contentMd5: input.contentMd5, ...signed });
    return {
      url: `${this.options.publicUrl}${LOCAL_OBJECTS_ROUTE}${input.key}?expires=${expires}&${query}&signature=${signature}`,
      headers: { 'Content-Length': contentLength, ...(input.contentMd5 === undefined ? {} : { 'Content-MD5': input.contentMd5 }) },
    };
  }

  listParts(key: string, uploadId: string): Promise<StoredPart[] | null> {
    return this.#multipart.listParts(key, uploadId);
  }

  completeMultipart(key: string, uploadId: string, parts: readonly StoredPart[]): Promise<void> {
    return this.#multipart.complete(key, uploadId, parts);
  }

  abortMultipart(key: string, uploadId: string): Promise<void> {
    return this.#multipart.abort(key, uploadId);
  }

  listMultipartUploads(before: Date): AsyncIterable<OpenMultipartUpload[]> {
    return this.#multipart.listUploads(before);
  }

  /** The key an open multipart upload is for; null when it is not open (completed, aborted, never made). */
  multipartOwner(uploadId: string): Promise<string | null> {
    return this.#multipart.owner(uploadId);
  }

  async delete(keys: readonly string[]): Promise<void> {
    const files = keys.flatMap((key) => [this.sealedPath(key), this.objectPath(key), this.shaPath(key)]);
    await Promise.all(files.map((file) => rm(file, { force: true })));
  }

  /** A prefix is a folder of both layouts: removed whole, with the folders under it. */
  async deletePrefix(prefix: string): Promise<void> {
    assertKeyPrefix(prefix);
    await Promise.all(['sealed', 'objects'].map((root) => rm(path.join(this.options.dir, root, prefix), { recursive: true, force: true })));
  }

  /**
   * Blobs are the projects' files: every directory here is its owner's only (0700), as the PUT
   * handler's files are (0600), and directories an earlier version made wider are tightened. One
   * the process does not own (a mount the operator prepared) is left as the operator made it.
   */
  async ensureReady(): Promise<void> {
    const folders = [this.options.dir, ...['sealed', 'incoming', 'multipart'].map((folder) => path.join(this.options.dir, folder))];
    for (const folder of folders) await mkdir(folder, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    await Promise.all(folders.map((folder) => chmod(folder, PRIVATE_DIRECTORY_MODE).catch(ignoreNotOwner)));
  }

  /** Where the PUT handler stores an object, sealed with its verified SHA-256. */
  sealedPath(key: string): string {
    return this.#keyPath('sealed', key);
  }

  /**
   * The earlier layout, still read: the object's bytes alone, its verified SHA-256 in the sidecar
   * at shaPath, written after it. Data directories of earlier versions hold it; nothing writes it now.
   */
  objectPath(key: string): string {
    return this.#keyPath('objects', key);
  }

  shaPath(key: string): string {
    return `${this.objectPath(key)}.sha256`;
  }

  #files(key: string): ObjectFiles {
    return { sealed: this.sealedPath(key), legacy: this.objectPath(key), sidecar: this.shaPath(key) };
  }

  #keyPath(root: string, key: string): string {
    if (!isValidStorageKey(key)) throw new Error(`Invalid storage key ${key}`);
    return path.join(this.options.dir, root, key);
  }

  incomingPath(name: string): string {
    return path.join(this.options.dir, 'incoming', name);
  }

  /** An open multipart upload's folder (local-layout.ts); the folder of them all without an id. */
  uploadPath(uploadId?: string): string {
    if (uploadId === undefined) return path.join(this.options.dir, 'multipart');
    if (!UPLOAD_ID_PATTERN.test(uploadId)) throw new Error(`Invalid upload id ${uploadId}`);
    return path.join(this.options.dir, 'multipart', uploadId);
  }

  /** Where a part of that number and MD5 (base64, as signed) is stored in its upload's folder. */
  partPath(uploadId: string, partNumber: number, contentMd5: string): string {
    return path.join(this.uploadPath(uploadId), partFileName(partNumber, md5Hex(contentMd5)));
  }

  /** The file name of a part as listParts answered it. */
  partFileOf(part: StoredPart): string {
    return partFileName(part.partNumber, part.etag.replace(/"/g, ''));
  }
}

function ignoreNotOwner(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPERM') throw error;
}

function ignoreMissing(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}
