import { afterAll, beforeAll, describe } from 'vitest';
import { testS3Options } from '@lode/testkit';
import { S3BlobStorage } from '../src/index.ts';
import { multipartScenarios } from './multipart-scenarios.ts';

describe('S3 driver against a real S3 (Swift s3api): multipart uploads', () => {
  let storage: S3BlobStorage;
  let counter = 0;

  beforeAll(async () => {
    storage = new S3BlobStorage(testS3Options());
    await storage.ensureReady();
  });
  afterAll(() => storage?.destroy());

  multipartScenarios(
    () => storage,
    () => `p/test/u/multipart-${Date.now()}-${++counter}`,
  );
});
