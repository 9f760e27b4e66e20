import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, startTestStack, type SeededProject, type TestStack } from '@lode/testkit';

describe('bad input answers a clear 4xx JSON error, never a 500', () => {
  let stack: TestStack;
  let p: SeededProject;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());
  const initiate = () => `/api/v1/projects/${p.projectId}/files/upload/initiate`;

  it.each([
    ['malformed JSON', '{"path": ', 'invalid_json'],
    ['a JSON array', '[]', 'validation_failed'],
    ['a string size', JSON.stringify({ path: 'a', sha256: 'a'.repeat(64), size: '10', contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' }), 'validation_failed'],
    ['a negative size', JSON.stringify({ path: 'a', sha256: 'a'.repeat(64), size: -1, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' }), 'validation_failed'],
    ['a short sha256', JSON.stringify({ path: 'a', sha256: 'abc', size: 1, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' }), 'validation_failed'],
    ['a bare null (strict JSON objects only)', 'null', 'invalid_json'],
  ])('400 for %s', async (_, body, code) => {
    const res = await p.api.request('POST', initiate(), body, { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code, message: expect.any(String) });
  });

  it('400 for a confirm with both storageKey and dedup, or neither', async () => {
    const base = { fileId: crypto.randomUUID(), version: 1, sha256: 'a'.repeat(64), size: 1 };
    for (const body of [{ ...base, storageKey: 'k', dedup: true }, base]) {
      const res = await p.api.post(`/api/v1/projects/${p.projectId}/files/upload/confirm`, body);
      expect(res.status).toBe(400);
    }
  });

  it('413 for a body over the limit', async () => {
    const res = await p.api.request('POST', initiate(), JSON.stringify({ pad: 'x'.repeat(17 * 1024 * 1024) }), { 'content-type': 'application/json' });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large' });
  });

  it('JSON 404 for unknown routes, authenticated or not', async () => {
    const anon = await new ApiClient(stack.baseUrl).get('/api/v1/nothing');
    expect(anon.status).toBe(404);
    expect(anon.body).toMatchObject({ code: 'route_not_found' });
    const authed = await p.api.get(`/api/v1/projects/${p.projectId}/nothing`);
    expect(authed.status).toBe(404);
  });

  it('answers the request id it was given, or a new one', async () => {
    const given = await p.api.request('POST', '/api/v1/auth/validate-key', undefined, { 'x-request-id': 'trace-me-123' });
    expect(given.headers.get('x-request-id')).toBe('trace-me-123');
    expect((await p.api.post('/api/v1/auth/validate-key')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports ready when the database and every service answer', async () => {
    const res = await new ApiClient(stack.baseUrl).get('/readyz');
    expect(res).toMatchObject({ status: 200, body: { status: 'ready', checks: { database: 'ok', upload: 'ok' } } });
    expect((await new ApiClient(stack.baseUrl).get('/healthz')).status).toBe(200);
  });
});
