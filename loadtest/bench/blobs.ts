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

/** PUTs in flight while seeding S3: more only queue in a small store and outlive the client's socket timeout. */
const S3_SEED_CONCURRENCY = 8;
/** A seeding PUT is the setup, not the figure: one that times out on a loaded store is sent again. */
const S3_SEED_TRIES = 5;

/** On S3 with the SDK; a restore's HEAD checks the size only there. */
export function s3BlobWriter(storage: S3BlobStorage, bucket: string): BlobWriter {
  const put = async (v: BulkVersion) => {
    for (let tries = 1; ; tries++) {
      try {
        return await storage.client.send(new PutObjectCommand({ Bucket: bucket, Key: v.storageKey, Body: bulkContent(v) }));
      } catch (error) {
        if (tries >= S3_SEED_TRIES) throw error;
      }
    }
  };
  return async (versions) => {
    await storage.ensureReady();
    await mapConcurrently(versions, S3_SEED_CONCURRENCY, put);
  };
}
