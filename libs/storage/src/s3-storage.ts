import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  ListPartsCommand,
  type ListPartsCommandOutput,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { HttpRequest } from '@smithy/protocol-http';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { mapConcurrently } from './concurrency.ts';
import { asStorageOutage } from './storage-outage.ts';
import { QueryPresigner } from './sigv4.ts';
import { attachmentDisposition } from './content-disposition.ts';
import { checkPartsToJoin, checkPartToSign, noSuchUpload, partNotHeld, partTooSmall, quotedEtag } from './multipart-rules.ts';
import {
  OBJECT_CONTENT_TYPE,
  type BlobStorage,
  type ObjectInfo,
  type OpenMultipartUpload,
  type PresignedPut,
  type PresignGetInput,
  type PresignPartInput,
  type PresignPutInput,
  type StoredContent,
  type StoredPart,
  assertKeyPrefix,
} from './storage.ts';

export interface S3StorageOptions {
  /** Custom endpoint (MinIO, R2, Ceph, Swift); omit for AWS. */
  endpoint?: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** Create the bucket at start when it is missing (development, CI); production buckets are provisioned. */
  createBucket: boolean;
}

const MAX_DELETE_BATCH = 1000;

/**
 * How long a call waits on a silent store: a connection that does not open, or a socket that
 * carries no byte, for this long fails the try, and the SDK tries twice in all. A stalled store
 * thus fails a call within about 10 s (2 × (2 s + 3 s)) as 503 `service_unavailable`, inside the
 * bus timeout (30 s by default), instead of the caller giving up with 504 while the call hangs
 * on. A large object's body streams on: only silence counts.
 */
const CONNECT_TIMEOUT_MS = 2000;
const IDLE_TIMEOUT_MS = 3000;
const MAX_ATTEMPTS = 2;

/**
 * A multi-object delete answers only once the store has deleted every object, and some stores
 * (Swift's s3api, Ceph) delete them a few at a time: a batch of hundreds is seconds of silence,
 * which the idle limit above would cut, every try. Such batches go through a client that waits
 * this long instead: they come from background jobs (the collectors, a project's purge), which no
 * bus timeout bounds. A delete of a few keys, as a request makes, keeps the short limit.
 */
const BULK_DELETE_IDLE_TIMEOUT_MS = 60_000;
const FEW_KEYS = 16;

/** HEADs in flight at once: enough to hide S3's latency, well inside the SDK's pool of 50 sockets. */
const HEADS_IN_FLIGHT = 32;

/**
 * Objects read and hashed at once (contentMany): a small object's read is mostly waiting for the
 * store, so 16 keep it busy; few enough that 1,000 objects do not open 1,000 streams, and each
 * stream hashes as it reads, so memory stays flat.
 */
const READS_IN_FLIGHT = 16;

/**
 * Wanted keys a listing page (up to 1,000 objects) must find to be worth reading instead of HEADs.
 * On the Swift s3api a full page takes as long as a handful of HEADs at 32 in flight, and AWS bills
 * a LIST as 12.5 HEADs; 32 keeps a margin for stores where pages cost more still. It is also the
 * fewest wanted keys under one prefix that are listed at all.
 */
const WANTED_KEYS_PER_PAGE = 32;

/**
 * S3-compatible storage: the SDK client for HEAD, listings, delete and bucket checks; URLs signed by our
 * QueryPresigner (SigV4, pinned to the SDK's output by a test), far cheaper per URL than the SDK's
 * presigners, whose cost would be a large part of a 1,000-entry initiate-batch.
 */
export class S3BlobStorage implements BlobStorage {
  readonly driver = 's3' as const;
  readonly client: S3Client;
  readonly #bulkDeletes: S3Client;
  readonly #presigner: QueryPresigner;
  readonly #options: S3StorageOptions;
  readonly #base: URL;

  constructor(options: S3StorageOptions) {
    this.#options = options;
    const credentials = { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey };
    const clientWaiting = (idleTimeoutMs: number) =>
      new S3Client({
        endpoint: options.endpoint,
        region: options.region,
        credentials,
        forcePathStyle: options.forcePathStyle,
        // The SDK's default CRC32 checksums break presigned PUTs and stream aws-chunked bodies.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: MAX_ATTEMPTS,
        requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: idleTimeoutMs },
      });
    this.client = clientWaiting(IDLE_TIMEOUT_MS);
    this.#bulkDeletes = clientWaiting(BULK_DELETE_IDLE_TIMEOUT_MS);
    this.#presigner = new QueryPresigner(credentials, options.region);
    const endpoint = options.endpoint ?? `https://s3.${options.region}.amazonaws.com`;
    this.#base = new URL(endpoint);
    if (!options.forcePathStyle) this.#base.hostname = `${options.bucket}.${this.#base.hostname}`;
  }

  /** Closes both clients' connections. */
  destroy(): void {
    this.client.destroy();
    this.#bulkDeletes.destroy();
  }

  async presignPut(input: PresignPutInput): Promise<PresignedPut> {
    const digest: Record<string, string> =
      input.contentMd5 === undefined ? { 'x-amz-checksum-sha256': Buffer.from(input.sha256, 'hex').toString('base64') } : { 'Content-MD5': input.contentMd5 };
    const headers = { 'Content-Length': String(input.size), ...digest, 'Content-Type': OBJECT_CONTENT_TYPE };
    // Signed as headers, not query parameters: storage then refuses a body of any other length or
    // digest (where it checks one), and an object of any other type (S3 keeps the PUT's
    // Content-Type and serves it on GET).
    const signed = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    const url = await this.#presign('PUT', input.key, input.expiresInSeconds, signed);
    return { url, headers };
  }

  /**
   * Served as the local driver serves its objects: as bytes to save (S3's response overrides, signed
   * in, so they cannot be dropped from the URL), whatever type an object was stored with, objects
   * from before Content-Type was signed included. S3 sends no `X-Content-Type-Options`; a type a
   * browser does not render and a download disposition leave it nothing to sniff.
   */
  async presignGet(input: PresignGetInput): Promise<string> {
    return this.#presign(
      'GET',
      input.key,
      input.expiresInSeconds,
      {},
      {
        'response-content-type': OBJECT_CONTENT_TYPE,
        'response-content-disposition': attachmentDisposition(input.filename),
      },
    );
  }

  async head(key: string): Promise<ObjectInfo | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.#options.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, verifiedSha256: undefined };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw asStorageOutage(error);
    }
  }

  /**
   * An object's bytes never change (its PUT signs Content-Length and Content-MD5, and every upload
   * has a key of its own), so the size in a listing is what a HEAD would answer, for up to 1,000
   * objects a request. Keys sharing a prefix are listed together (#listWanted); every key a listing
   * did not show is HEADed, which also confirms each absence against a listing that lags behind
   * PUTs (Swift updates container listings asynchronously under load). Absences are rare, so a
   * restore's check costs a page per 1,000 objects instead of a HEAD per key.
   */
  async headMany(keys: readonly string[]): Promise<(ObjectInfo | null)[]> {
    const listed = new Map<string, ObjectInfo>();
    const distinct = [...new Set(keys)];
    const byPrefix = Map.groupBy(distinct, (key) => key.slice(0, key.lastIndexOf('/') + 1));
    const worthListing = [...byPrefix].filter(([, wanted]) => wanted.length >= WANTED_KEYS_PER_PAGE);
    await Promise.all(worthListing.map(([prefix, wanted]) => this.#listWanted(prefix, wanted.sort(), listed)));
    const unlisted = distinct.filter((key) => !listed.has(key));
    const heads = await mapConcurrently(unlisted, HEADS_IN_FLIGHT, (key) => this.head(key));
    const answers = new Map<string, ObjectInfo | null>([...listed, ...unlisted.map((key, i) => [key, heads[i]] as const)]);
    return keys.map((key) => answers.get(key) ?? null);
  }

  /**
   * Lists `prefix` from just before the smallest wanted key until past the largest, recording the
   * wanted objects it meets. Another page is read only while the pages so far found
   * WANTED_KEYS_PER_PAGE wanted keys each: a listing through objects nobody asked for stops after
   * one page, and at most 1 + wanted / WANTED_KEYS_PER_PAGE pages are ever read. Keys are ASCII
   * (STORAGE_KEY_PATTERN), so JavaScript's string order is S3's byte order.
   */
  async #listWanted(prefix: string, wanted: readonly string[], listed: Map<string, ObjectInfo>): Promise<void> {
    const wantedKeys = new Set(wanted);
    const largest = wanted[wanted.length - 1];
    // StartAfter is exclusive; the smallest key without its last character sorts just before it.
    let request: { StartAfter: string } | { ContinuationToken: string | undefined } = { StartAfter: wanted[0].slice(0, -1) };
    let found = 0;
    for (let pages = 1; ; pages++) {
      const page: ListObjectsV2CommandOutput = await this.client
        .send(new ListObjectsV2Command({ Bucket: this.#options.bucket, Prefix: prefix, ...request }))
        .catch((error: unknown) => {
          throw asStorageOutage(error);
        });
      for (const { Key, Size } of page.Contents ?? []) {
        if (Key === undefined || !wantedKeys.has(Key)) continue;
        listed.set(Key, { size: Size ?? 0, verifiedSha256: undefined });
        found++;
      }
      const reached = page.Contents?.at(-1)?.Key;
      if (!page.IsTruncated || reached === undefined || reached >= largest || found < pages * WANTED_KEYS_PER_PAGE) return;
      request = { ContinuationToken: page.NextContinuationToken };
    }
  }

  /**
   * S3-compatible stores differ in whether they enforce a signed x-amz-checksum-sha256 (Swift 2.30
   * accepts a wrong one), so each object is read once, streaming, and hashed. The GET answers the
   * size and the absence too: no HEAD or listing first, which for objects just PUT cost a third store
   * request per object (a listing lags behind fresh PUTs, so most were HEADed anyway).
   */
  async contentMany(keys: readonly string[]): Promise<(StoredContent | null)[]> {
    const distinct = [...new Set(keys)];
    const contents = await mapConcurrently(distinct, READS_IN_FLIGHT, (key) => this.#content(key));
    const answers = new Map(distinct.map((key, i) => [key, contents[i]]));
    return keys.map((key) => answers.get(key) ?? null);
  }

  async #content(key: string): Promise<StoredContent | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.#options.bucket, Key: key }));
      const hash = createHash('sha256');
      await pipeline(object.Body as Readable, hash);
      return { size: object.ContentLength ?? 0, sha256: hash.digest('hex') };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw asStorageOutage(error);
    }
  }

  /**
   * S3-compatible stores differ in whether they enforce a signed x-amz-checksum-sha256, so a URL that
   * signed no MD5 may still write other bytes of the same length: the object is copied, inside the
   * store, to a key no URL names. The copy keeps the type the PUT signed.
   */
  async freeze(key: string, freshKey: string): Promise<string | null> {
    const Bucket = this.#options.bucket;
    try {
      await this.client.send(new CopyObjectCommand({ Bucket, Key: freshKey, CopySource: `${Bucket}/${encodeURIComponent(key)}` }));
      return freshKey;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw asStorageOutage(error);
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += MAX_DELETE_BATCH) {
      const batch = keys.slice(i, i + MAX_DELETE_BATCH);
      const command = new DeleteObjectsCommand({ Bucket: this.#options.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } });
      withContentMd5(command);
      const result = await (batch.length > FEW_KEYS ? this.#bulkDeletes : this.client).send(command).catch((error: unknown) => {
        throw asStorageOutage(error);
      });
      const failed = (result.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length > 0) throw new Error(`S3 refused to delete ${failed.length} objects: ${failed[0]?.Code} ${failed[0]?.Message}`);
    }
  }

  /** The prefix is listed a page (up to 1,000 keys) at a time, each page deleted in one request before the next is read. */
  async deletePrefix(prefix: string): Promise<void> {
    assertKeyPrefix(prefix);
    let ContinuationToken: string | undefined;
    do {
      const page: ListObjectsV2CommandOutput = await this.client
        .send(new ListObjectsV2Command({ Bucket: this.#options.bucket, Prefix: prefix, ContinuationToken }))
        .catch((error: unknown) => {
          throw asStorageOutage(error);
        });
      const keys = (page.Contents ?? []).flatMap(({ Key }) => (Key === undefined ? [] : [Key]));
      if (keys.length > 0) await this.delete(keys);
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken !== undefined);
  }

  /** Typed as single PUTs store objects: S3 keeps the type given here for the completed object. */
  async createMultipart(key: string): Promise<string> {
    const created = await this.client
      .send(new CreateMultipartUploadCommand({ Bucket: this.#options.bucket, Key: key, ContentType: OBJECT_CONTENT_TYPE }))
      .catch((error: unknown) => {
        throw asStorageOutage(error);
      });
    if (!created.UploadId) throw new Error(`S3 began a multipart upload of ${key} without an upload id`);
    return created.UploadId;
  }

  /** Length and MD5 signed as headers, as presignPut signs them: the store refuses any other body for the part. */
  async presignPart(input: PresignPartInput): Promise<PresignedPut> {
    checkPartToSign(input);
    const headers = { 'Content-Length': String(input.size), 'Content-MD5': input.contentMd5 };
    const signed = { 'content-length': headers['Content-Length'], 'content-md5': headers['Content-MD5'] };
    const query = { partNumber: String(input.partNumber), uploadId: input.uploadId };
    const url = await this.#presign('PUT', input.key, input.expiresInSeconds, signed, query);
    return { url, headers };
  }

  /**
   * Read page by page. Swift's s3api also lists the parts of an upload it completed (it finds the
   * upload id on the object), so an object under the key means the upload is no longer open.
   */
  async listParts(key: string, uploadId: string): Promise<StoredPart[] | null> {
    const parts: StoredPart[] = [];
    let marker: string | undefined;
    for (;;) {
      let page: ListPartsCommandOutput;
      try {
        page = await this.client.send(new ListPartsCommand({ Bucket: this.#options.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }));
      } catch (error) {
        if (isNoSuchUpload(error)) return null;
        throw asStorageOutage(error);
      }
      for (const part of page.Parts ?? []) {
        if (part.PartNumber === undefined || part.ETag === undefined) continue;
        parts.push({ partNumber: part.PartNumber, size: part.Size ?? 0, etag: quotedEtag(part.ETag) });
      }
      if (!page.IsTruncated || !page.NextPartNumberMarker || page.NextPartNumberMarker === marker) break;
      marker = page.NextPartNumberMarker;
    }
    if (await this.head(key)) return null;
    return parts;
  }

  /**
   * An upload already completed answers NoSuchUpload on AWS (Swift answers success): with the object
   * in place, that is done. The store's refusals of the parts are `upload_incomplete`.
   */
  async completeMultipart(key: string, uploadId: string, parts: readonly StoredPart[]): Promise<void> {
    checkPartsToJoin(parts);
    const MultipartUpload = { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: quotedEtag(part.etag) })) };
    try {
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.#options.bucket, Key: key, UploadId: uploadId, MultipartUpload }));
    } catch (error) {
      if (isNoSuchUpload(error)) {
        if (await this.head(key)) return;
        throw Object.assign(noSuchUpload(), { cause: error });
      }
      const name = (error as { name?: string }).name;
      if (name === 'InvalidPart' || name === 'InvalidPartOrder') throw Object.assign(partNotHeld(), { cause: error });
      if (name === 'EntityTooSmall') throw Object.assign(partTooSmall(), { cause: error });
      throw asStorageOutage(error);
    }
  }

  /** Swift answers 404 NoSuchKey for an upload it completed, AWS NoSuchUpload for one it forgot: either is gone. */
  async abortMultipart(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.#options.bucket, Key: key, UploadId: uploadId }));
    } catch (error) {
      if (isNoSuchUpload(error)) return;
      throw asStorageOutage(error);
    }
  }

  /** A page per listing request (up to 1,000 uploads), only those begun before `before`; pages left with none are not answered. */
  async *listMultipartUploads(before: Date): AsyncIterable<OpenMultipartUpload[]> {
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page: ListMultipartUploadsCommandOutput = await this.client
        .send(new ListMultipartUploadsCommand({ Bucket: this.#options.bucket, ...markers }))
        .catch((error: unknown) => {
          throw asStorageOutage(error);
        });
      const open = (page.Uploads ?? []).flatMap(({ Key, UploadId, Initiated }) =>
        Key !== undefined && UploadId !== undefined && Initiated !== undefined && Initiated < before
          ? [{ key: Key, uploadId: UploadId, initiated: Initiated }]
          : [],
      );
      if (open.length > 0) yield open;
      // A truncated page without a marker would list the first page again, forever.
      if (!page.IsTruncated || page.NextKeyMarker === undefined) return;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }

  async ensureReady(): Promise<void> {
    const Bucket = this.#options.bucket;
    try {
      await this.client.send(new HeadBucketCommand({ Bucket }));
      return;
    } catch (error) {
      if (!isNotFound(error)) throw unreachable(this.#base, Bucket, error);
      if (!this.#options.createBucket) {
        throw new Error(`S3 bucket "${Bucket}" does not exist at ${this.#base.origin} (set S3_CREATE_BUCKET=true to create it)`, { cause: error });
      }
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket }));
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw unreachable(this.#base, Bucket, error);
    }
  }

  async #presign(method: 'PUT' | 'GET', key: string, expiresIn: number, headers: Record<string, string>, query?: Record<string, string>): Promise<string> {
    const path = this.#options.forcePathStyle ? `/${this.#options.bucket}/${key}` : `/${key}`;
    return this.#presigner.presign({
      method,
      protocol: this.#base.protocol,
      host: this.#base.host,
      path: this.#base.pathname.replace(/\/$/, '') + path,
      headers,
      query,
      expiresIn,
    });
  }
}

/**
 * Multi-object delete must carry Content-MD5 on S3 implementations that predate flexible checksums
 * (Swift, older Ceph and MinIO); with checksums set to WHEN_REQUIRED the SDK no longer adds it.
 */
function withContentMd5(command: DeleteObjectsCommand): void {
  command.middlewareStack.add(
    (next) => async (args) => {
      if (HttpRequest.isInstance(args.request) && typeof args.request.body === 'string') {
        args.request.headers['content-md5'] = createHash('md5').update(args.request.body).digest('base64');
      }
      return next(args);
    },
    { step: 'build', name: 'lodeContentMd5' },
  );
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.$metadata.httpStatusCode === 404 || error.name === 'NotFound' || error.name === 'NoSuchKey' || error.name === 'NoSuchBucket')
  );
}

/** The store has no open upload of that id for that key (AWS: NoSuchUpload; Swift also answers 404 NoSuchKey). */
function isNoSuchUpload(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'NoSuchUpload' || error.$metadata.httpStatusCode === 404);
}

function unreachable(base: URL, bucket: string, error: unknown): Error {
  return new Error(`S3 storage at ${base.origin} (bucket "${bucket}") is not usable: ${(error as Error).message}`, { cause: error });
}
