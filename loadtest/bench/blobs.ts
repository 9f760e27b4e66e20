import { PutObjectCommand } from '@aws-sdk/client-s3';
import { mapConcurrently, type LocalBlobStorage, type S3BlobStorage } from '@lode/storage';
import { bulkContent, writeBulkBlobs, type BulkVersion } from '@lode/testkit';

/**
 * Puts the objects of bulk-seeded versions where the deployment's storage keeps them, without a
 * presigned PUT each (minutes for thousands of files): the setup of restores, outside the timings.
 */
export type BlobWriter = (versions: readonly BulkVersion[]) => Promise<void>;

/** On local disk, laid out as the driver's verified PUT leaves them. */
export function localBlobWriter(storage: LocalBlobStorage): BlobWriter {
  return (versions) => writeBulkBlobs(storage, versions);
}

/** On S3 with the SDK; a restore's HEAD checks the size only there. */
export function s3BlobWriter(storage: S3BlobStorage, bucket: string): BlobWriter {
  return async (versions) => {
    await storage.ensureReady();
    await mapConcurrently(versions, 32, (v) => storage.client.send(new PutObjectCommand({ Bucket: bucket, Key: v.storageKey, Body: bulkContent(v) })));
  };
}
