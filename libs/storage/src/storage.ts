/**
 * The blob store behind the upload service. Bytes never pass through Lode's services: clients PUT and
 * GET presigned URLs, and the service only signs, checks existence and deletes.
 */
export interface PresignPutInput {
  key: string;
  size: number;
  /**
   * base64 MD5, signed in so that storage refuses any other body. None for a client that cannot say
   * it (git-lfs knows only the SHA-256): the object must then be verified by reading it back before
   * anything points at it, as every upload is.
   */
  contentMd5?: string | undefined;
  /**
   * hex SHA-256 that the client declared; drivers that can enforce it sign it in too (the local
   * driver always; S3 as x-amz-checksum-sha256 when no MD5 is given, which stores that check it).
   */
  sha256: string;
  expiresInSeconds: number;
}

export interface PresignedPut {
  url: string;
  /**
   * Headers the client must send verbatim: Content-Length, Content-MD5 when one was given, and
   * Content-Type where the store keeps and serves one (S3), so that no uploader chooses it.
   */
  headers: Record<string, string>;
}

/** The only type an object is stored and served as: bytes to save, never a page to render. */
export const OBJECT_CONTENT_TYPE = 'application/octet-stream';

export interface PresignGetInput {
  key: string;
  expiresInSeconds: number;
  /** The name a browser saves the download under (the file's last path segment); none: the URL's. */
  filename?: string | undefined;
}

export interface ObjectInfo {
  size: number;
  /** hex SHA-256 of the stored bytes when the driver verified it on write; undefined otherwise. */
  verifiedSha256: string | undefined;
}

/** What an object holds: its size and the hex SHA-256 of its bytes. */
export interface StoredContent {
  size: number;
  sha256: string;
}

/** One part of a multipart upload to sign: its number (from 1), exact length and base64 MD5. */
export interface PresignPartInput {
  key: string;
  uploadId: string;
  partNumber: number;
  size: number;
  contentMd5: string;
  expiresInSeconds: number;
}

/** A part the store holds: its number, size and ETag (the hex MD5 of its bytes, in double quotes). */
export interface StoredPart {
  partNumber: number;
  size: number;
  etag: string;
}

/** A multipart upload the store has open, for the collector of abandoned ones. */
export interface OpenMultipartUpload {
  key: string;
  uploadId: string;
  initiated: Date;
}

/** S3's part numbers, kept by both drivers (Swift's s3api allows 1,000 unless configured otherwise). */
export const MULTIPART_MAX_PART_NUMBER = 10_000;
/** S3's smallest part but the last, kept by both drivers: completing with a smaller one is refused. */
export const MULTIPART_MIN_PART_SIZE = 5 * 1024 * 1024;

/**
 * Multipart uploads, S3's way on both drivers: created for a key, each part PUT to its own presigned
 * URL (which signs the part's length and MD5, so the store refuses any other body), completed from
 * the parts the store lists into one object under the key, or aborted. Until it is completed,
 * nothing exists under the key. A re-PUT of a part replaces it: the last one stored wins.
 *
 * The store's refusals of what was asked are `upload_incomplete` errors (the upload is gone, or a
 * part is not held as listed, or is too small); an outage is 503 `service_unavailable`, as for
 * every call. Malformed input (a bad upload id, part number or ETag) is a caller's bug: a plain Error.
 */
export interface MultipartStorage {
  /** Begins an upload for `key` (stored as OBJECT_CONTENT_TYPE once completed); answers its upload id. */
  createMultipart(key: string): Promise<string>;
  /** A URL for one part: headers Content-Length and Content-MD5, both signed, to send verbatim. */
  presignPart(input: PresignPartInput): Promise<PresignedPut>;
  /** The parts stored so far, by part number; null when the store knows no such open upload (completed or aborted). */
  listParts(key: string, uploadId: string): Promise<StoredPart[] | null>;
  /**
   * Joins the parts, in order, into the object at `key`; the parts must be those listParts answered
   * (ascending numbers, every one but the last at least MULTIPART_MIN_PART_SIZE). Done once the
   * object exists: a second call, concurrent or after success, answers as the first did. The local
   * driver reads every byte to seal the object with its SHA-256, so a large object takes a while.
   */
  completeMultipart(key: string, uploadId: string, parts: readonly StoredPart[]): Promise<void>;
  /** Drops an open upload and its parts; an upload already gone (aborted or completed) is not an error. */
  abortMultipart(key: string, uploadId: string): Promise<void>;
  /** Every open upload begun before `before`, in pages of the store's listing (no empty page). */
  listMultipartUploads(before: Date): AsyncIterable<OpenMultipartUpload[]>;
}

export interface BlobStorage extends MultipartStorage {
  readonly driver: 'local' | 's3';
  presignPut(input: PresignPutInput): Promise<PresignedPut>;
  presignGet(input: PresignGetInput): Promise<string>;
  head(key: string): Promise<ObjectInfo | null>;
  /**
   * What head would answer for each key, in key order, for checks of many objects at once: drivers
   * may answer from listings where that costs less than a HEAD per key.
   */
  headMany(keys: readonly string[]): Promise<(ObjectInfo | null)[]>;
  /**
   * What each object holds, in key order, null where there is none: the check before a version or a
   * dedup entry may exist. A driver that verified the SHA-256 as the bytes were written answers from
   * that; the others read each object once, streaming, which answers its size too (no HEAD first).
   */
  contentMany(keys: readonly string[]): Promise<(StoredContent | null)[]>;
  /**
   * A key holding what `key` holds now, whose bytes no PUT URL already handed out can change: `key`
   * itself where the store refused every PUT whose body did not match its signed SHA-256 (nothing
   * else can be written there), else a copy made inside the store at `freshKey`. What is verified
   * and then pointed at must be such a key when its PUT URL signed no MD5; null when `key` has no object.
   */
  freeze(key: string, freshKey: string): Promise<string | null>;
  delete(keys: readonly string[]): Promise<void>;
  /**
   * Deletes every object whose key begins with `prefix` (a key's leading folders, ending in `/`):
   * a purged project's objects, whatever wrote them. Done again, it deletes what appeared since.
   * Open multipart uploads are not objects: they are aborted on their own.
   */
  deletePrefix(prefix: string): Promise<void>;
  /** Checks (and where allowed creates) the bucket or directory; throws a clear error otherwise. */
  ensureReady(): Promise<void>;
}

/** Object keys are generated by the upload service; anything else is refused before touching disk. */
// No dots at all: no `..` traversal, and no clash with the driver's `.sha256` sidecars.
export const STORAGE_KEY_PATTERN = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

export function isValidStorageKey(key: string): boolean {
  return key.length <= 512 && STORAGE_KEY_PATTERN.test(key);
}

/** A prefix deletePrefix takes: whole folders of keys, never a part of a name (`p/<id>/`, not `p/<id>`). */
export function assertKeyPrefix(prefix: string): void {
  if (!prefix.endsWith('/') || !isValidStorageKey(prefix.slice(0, -1))) throw new Error(`Invalid storage key prefix ${prefix}`);
}
