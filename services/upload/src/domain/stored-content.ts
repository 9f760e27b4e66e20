import { errors } from '@lode/errors';
import type { BlobStorage, ObjectInfo } from '@lode/storage';

/** An object a client was told to PUT, and what it promised about it at initiate. */
export interface ExpectedObject {
  storageKey: string;
  sha256: string;
  size: number;
}

/**
 * Checks that the object a client PUT holds exactly the promised bytes, before anything may point at
 * it (docs/api.md, Integrity): it must exist with the declared size and SHA-256. Drivers that verified
 * the SHA-256 on write say so; the others are read once. Bytes that do not match are deleted, so a
 * retry starts from a fresh initiate. File uploads and plugin publishes share this one check.
 * `headed` is what a batched head (headMany) already answered for the key; without it, it is HEADed.
 */
export async function verifyStoredObject(storage: BlobStorage, expected: ExpectedObject, headed?: ObjectInfo | null): Promise<void> {
  const stored = headed === undefined ? await storage.head(expected.storageKey) : headed;
  if (!stored) throw errors.uploadIncomplete('The object has not been uploaded to storage yet');
  if (stored.size !== expected.size) {
    throw errors.contentMismatch(`Stored object has ${stored.size} bytes, expected ${expected.size}`);
  }
  const actualSha256 = stored.verifiedSha256 ?? (await storage.computeSha256(expected.storageKey));
  if (actualSha256 !== expected.sha256) {
    await storage.delete([expected.storageKey]);
    throw errors.contentMismatch('The uploaded bytes do not match the declared SHA-256; initiate and upload again');
  }
}
