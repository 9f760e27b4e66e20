import { randomBytes } from 'node:crypto';
import type { S3StorageOptions } from '@lode/storage';

/** The S3 that scripts/swift-s3.sh runs for tests; a fresh bucket per run keeps runs apart. */
export function testS3Options(bucket = `lode-test-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`): S3StorageOptions {
  return {
    endpoint: process.env.TEST_S3_ENDPOINT ?? 'http://127.0.0.1:8070',
    region: process.env.TEST_S3_REGION ?? 'us-east-1',
    bucket,
    accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID ?? 'test:tester',
    secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY ?? 'testing',
    forcePathStyle: true,
    createBucket: true,
  };
}
