import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkContent, describeContent, type SeededProject } from '@lode/testkit';
import { seedConfirmedVersions, startTestStack, type TestStack } from '@lode/system/testing';

/** Enough files under one project's prefix that the S3 driver answers the check from a listing. */
const FILES = 40;

describe('a restore on S3 checks every object in one batch (Swift s3api)', () => {
  let stack: TestStack;
  let p: SeededProject;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: 's3' });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());

  /** Stores `bytes` under the version's key through a presigned PUT, as a client would. */
  const store = async (storageKey: string, bytes: Buffer) => {
    const put = await stack.storage.presignPut({ key: storageKey, ...describeContent(bytes), expiresInSeconds: 60 });
    expect((await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes })).status).toBe(200);
  };

  it('restores the files whose objects are stored, and skips as blob_missing those gone or of another size', async () => {
    const files = await seedConfirmedVersions(stack.databaseUrl, p, FILES);
    const [gone, alsoGone, resized] = [files[3], files[17], files[30]];
    await Promise.all(
      files.filter((f) => f !== gone && f !== alsoGone).map((f) => store(f.storageKey, f === resized ? randomBytes(f.size + 1) : bulkContent(f))),
    );
    const commits = `/api/v1/projects/${p.projectId}/commits`;
    expect((await p.api.post(commits, { message: 'add', fileVersions: files.map((f) => ({ fileId: f.fileId, version: 1, action: 'add' })) })).status).toBe(201);
    expect((await p.api.post(commits, { message: 'delete', fileVersions: files.map((f) => ({ fileId: f.fileId, action: 'delete' })) })).status).toBe(201);

    const res = await p.api.post(`/api/v1/projects/${p.projectId}/restore`, { files: files.map((f) => ({ fileId: f.fileId, toVersion: 1 })) });
    expect(res.status).toBe(200);
    const unrestorable = [gone, alsoGone, resized];
    expect(res.body.restored).toEqual(files.filter((f) => !unrestorable.includes(f)).map((f) => ({ fileId: f.fileId, newVersion: 2 })));
    expect(res.body.skipped).toEqual(
      unrestorable.map((f) => ({ fileId: f.fileId, toVersion: 1, code: 'blob_missing', message: 'The content of version 1 is missing from storage' })),
    );
  });
});
