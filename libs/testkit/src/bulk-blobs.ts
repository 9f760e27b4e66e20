import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LocalBlobStorage, mapConcurrently, sealedHeader, type BlobStorage } from '@lode/storage';
import { bulkContent, type BulkVersion } from './bulk-versions.ts';

/**
 * Stores the objects of bulk-seeded versions (their bytes are bulkContent) straight into the local
 * driver's directory, sealed as its verified PUT leaves them: one file, the header with the SHA-256,
 * then the bytes. A presigned PUT per object would take minutes for 25,000 files; what a restore or a
 * download then reads is the same. The local driver only: S3 objects are written by S3.
 */
export async function writeBulkBlobs(storage: BlobStorage, versions: readonly BulkVersion[]): Promise<void> {
  if (!(storage instanceof LocalBlobStorage)) throw new Error('writeBulkBlobs writes the local driver’s files; use pushFile with S3');
  const directories = [...new Set(versions.map((v) => path.dirname(storage.sealedPath(v.storageKey))))];
  await Promise.all(directories.map((dir) => mkdir(dir, { recursive: true })));
  await mapConcurrently(versions, 64, (v) => writeFile(storage.sealedPath(v.storageKey), [Buffer.from(sealedHeader(v.sha256), 'latin1'), bulkContent(v)]));
}
