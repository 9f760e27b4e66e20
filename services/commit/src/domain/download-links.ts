import { fileNameOf, type BlobStorage } from '@lode/storage';

/** How long a committed version's download URL stays valid (docs/api.md). */
export const DOWNLOAD_URL_TTL_SECONDS = 3600;

/**
 * The download URLs of committed versions, for the versions listing and batch download URLs alike:
 * a presigned GET of the version's object, which a browser saves under the file's name. Signing is
 * local arithmetic in every driver, never a call to the store.
 */
export class DownloadLinks {
  readonly #storage: BlobStorage;

  constructor(storage: BlobStorage) {
    this.#storage = storage;
  }

  sign(storageKey: string, path: string): Promise<string> {
    return this.#storage.presignGet({ key: storageKey, expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS, filename: fileNameOf(path) });
  }

  /**
   * When URLs signed from `signedAt` on stop working, at the earliest: drivers sign whole seconds
   * (SigV4's X-Amz-Date, the local driver's `expires`), so the second is rounded down.
   */
  expiresAt(signedAt: number): string {
    return new Date(Math.floor(signedAt / 1000) * 1000 + DOWNLOAD_URL_TTL_SECONDS * 1000).toISOString();
  }
}
