import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResponse, type SeededProject } from '@lode/testkit';
import { commit, sync, upload } from '@lode/contracts';
import { startTestStack, type TestStack } from '@lode/system/testing';

/** A gzip body that inflates to `size` bytes of JSON whitespace around an empty object. */
const bomb = (size: number) => gzipSync(Buffer.concat([Buffer.from('{'), Buffer.alloc(size - 2, ' '), Buffer.from('}')]), { level: 9 });

describe('request bodies are read only after authentication, within a per-route limit', () => {
  let stack: TestStack;
  let p: SeededProject;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());
  const url = (path: string) => `${stack.baseUrl}/api/v1/projects/${p.projectId}${path}`;
  const keyHeaders = () => ({ authorization: `Bearer ${p.key}`, 'x-device-id': p.deviceId });
  const send = (target: string, headers: Record<string, string>, body: Buffer | string) => fetch(target, { method: 'POST', headers, body }).then(readResponse);
  const gzipJson = { 'content-type': 'application/json', 'content-encoding': 'gzip' };

  it.each([
    ['a project route', () => url('/sync'), {}, 'missing_key'],
    ['validate-key', () => `${stack.baseUrl}/api/v1/auth/validate-key`, {}, 'missing_key'],
    ['an admin route', () => `${stack.baseUrl}/admin/v1/orgs`, { authorization: 'Bearer wrong-token-wrong-token' }, 'unauthorized'],
    ['a dashboard route', () => `${stack.baseUrl}/api/v1/orgs/${p.orgId}/projects`, {}, 'unauthorized'],
  ])('answers 401 on %s without inflating or parsing the body of a caller with no credentials', async (_, target, auth, code) => {
    // Neither body can be read: had the gateway tried, it would answer 400, not 401.
    expect(await send(target(), { ...gzipJson, ...auth }, 'not gzip at all')).toMatchObject({ status: 401, body: { code } });
    expect(await send(target(), { 'content-type': 'application/json', ...auth }, '{"not json')).toMatchObject({ status: 401, body: { code } });
  });

  it('413 payload_too_large for a body that inflates far past its compressed size, even under the route limit', async () => {
    const res = await send(url('/sync'), { ...gzipJson, ...keyHeaders() }, bomb(4 * 1024 * 1024));
    expect(res).toMatchObject({ status: 413, body: { code: 'payload_too_large', message: expect.stringContaining('compressed') } });
  });

  it('413 payload_too_large past 1 MiB on a route that takes no batch, counted after decompression', async () => {
    const body = JSON.stringify({ fileIds: [crypto.randomUUID()], note: 'x', pad: randomBytes(512 * 1024 + 1).toString('hex') });
    for (const [headers, bytes] of [
      [{ 'content-type': 'application/json' }, Buffer.from(body)],
      [gzipJson, gzipSync(body)],
    ] as const) {
      const res = await send(url('/locks'), { ...headers, ...keyHeaders() }, bytes);
      expect(res).toMatchObject({ status: 413, body: { code: 'payload_too_large', message: expect.stringContaining('1048576-byte') } });
    }
  });

  it('reads the largest batches of commit, sync and initiate-batch, each at its longest, indented', async () => {
    const fileVersions = Array.from({ length: commit.MAX_COMMIT_ENTRIES }, () => ({ fileId: crypto.randomUUID(), action: 'modify', version: 2 ** 31 - 1 }));
    const longPath = (i: number) => `${Array.from({ length: 5 }, () => 'd'.repeat(190)).join('/')}/${String(i).padStart(40, '0')}`;
    const files = Array.from({ length: sync.MAX_SYNC_BATCH }, (_, i) => ({ path: longPath(i), sha256: 'a'.repeat(64), baseVersion: 1 }));
    const initiate = Array.from({ length: upload.MAX_INITIATE_BATCH }, (_, i) => ({
      path: longPath(i),
      sha256: 'a'.repeat(64),
      size: 1,
      contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==',
    }));
    const json = { 'content-type': 'application/json', ...keyHeaders() };
    const commitRes = await send(url('/commits'), json, JSON.stringify({ message: 'm'.repeat(10_000), fileVersions }, null, 2));
    expect(commitRes.status).toBe(404); // read and checked: the files do not exist
    expect(await send(url('/sync'), json, JSON.stringify({ files }))).toMatchObject({ status: 200 });
    expect(await send(url('/files/upload/initiate-batch'), json, JSON.stringify({ files: initiate }, null, 2))).toMatchObject({ status: 200 });
  });
});
