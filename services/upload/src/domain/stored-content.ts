import { errors, type AppError } from '@lode/errors';
import type { BlobStorage } from '@lode/storage';

/** An object a client was told to PUT, and what it promised about it at initiate. */
export interface ExpectedObject {
  storageKey: string;
  sha256: string;
  size: number;
}

/**
 * Checks that objects clients PUT hold exactly the promised bytes, before anything may point at them
 * (docs/api.md, Integrity): each must exist with the declared size and SHA-256, as the driver
 * verified them on write or reads them back once (contentMany). Bytes that do not match are
 * deleted, so a retry starts from a fresh initiate. File uploads and plugin publishes share this one
 * check. Answers each object's failure, or undefined, in order; a store that cannot answer throws.
 */
async function verifyStoredObjects(storage: BlobStorage, expected: readonly ExpectedObject[]): Promise<(AppError | undefined)[]> {
  const contents = await storage.contentMany(expected.map((object) => object.storageKey));
  const wrongBytes: string[] = [];
  const failures = expected.map((object, i) => {
    const stored = contents[i];
    if (!stored) return errors.uploadIncomplete('The object has not been uploaded to storage yet');
    if (stored.size !== object.size) return errors.contentMismatch(`Stored object has ${stored.size} bytes, expected ${object.size}`);
    if (stored.sha256 === object.sha256) return undefined;
    wrongBytes.push(object.storageKey);
    return errors.contentMismatch('The uploaded bytes do not match the declared SHA-256; initiate and upload again');
  });
  if (wrongBytes.length > 0) await storage.delete(wrongBytes);
  return failures;
}

/**
 * verifyStoredObjects that reads each object at most once at a time in this process: a confirm
 * retried while the first is still reading (a client whose gateway gave up on a large S3 object)
 * joins that read instead of starting another, so retries converge instead of piling load on the store.
 * File uploads and plugin publishes each confirm through one.
 */
export class ObjectVerifier {
  readonly #storage: BlobStorage;
  readonly #inFlight = new Map<string, Promise<AppError | undefined>>();

  constructor(storage: BlobStorage) {
    this.#storage = storage;
  }

  verify(expected: readonly ExpectedObject[]): Promise<(AppError | undefined)[]> {
    const fresh = expected.filter((object) => !this.#inFlight.has(object.storageKey));
    if (fresh.length > 0) {
      const reading = verifyStoredObjects(this.#storage, fresh);
      fresh.forEach((object, i) => {
        const settled = reading.then((failures) => failures[i]);
        const forget = () => this.#inFlight.delete(object.storageKey);
        settled.then(forget, forget);
        this.#inFlight.set(object.storageKey, settled);
      });
    }
    // A storage key names one reservation's bytes, so a read in flight answers for every entry naming it.
    return Promise.all(expected.map((object) => this.#inFlight.get(object.storageKey)!));
  }

  /** verify of one object: throws its failure. */
  async verifyOne(expected: ExpectedObject): Promise<void> {
    const [failure] = await this.verify([expected]);
    if (failure) throw failure;
  }
}
