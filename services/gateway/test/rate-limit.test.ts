import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeContent, type ApiClient } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

describe('per-project write rate limit in Redis', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', limiter: 'redis', defaultWriteLimit: { perSecond: 0.5, burst: 3 } });
  });
  afterAll(async () => stack?.stop());

  const initiate = (api: ApiClient, projectId: string) =>
    api.post(`/api/v1/projects/${projectId}/files/upload/initiate`, { path: `f-${randomBytes(3).toString('hex')}`, ...describeContent(randomBytes(4)) });

  it('answers 429 with Retry-After once the burst is spent, and counts a batch as one write', async () => {
    const p = await stack.seed.project();
    const batch = await p.api.post(`/api/v1/projects/${p.projectId}/files/upload/initiate-batch`, {
      files: Array.from({ length: 50 }, (_, i) => ({ path: `batch/${i}`, ...describeContent(randomBytes(4)) })),
    });
    expect(batch.status).toBe(200);
    expect((await initiate(p.api, p.projectId)).status).toBe(200);
    expect((await initiate(p.api, p.projectId)).status).toBe(200);
    const limited = await initiate(p.api, p.projectId);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ code: 'rate_limited', message: expect.any(String), retryAfterSeconds: expect.any(Number) });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('does not limit reads, and keeps projects apart', async () => {
    const p = await stack.seed.project();
    for (let i = 0; i < 3; i++) await initiate(p.api, p.projectId);
    expect((await initiate(p.api, p.projectId)).status).toBe(429);
    for (let i = 0; i < 10; i++) expect((await p.api.post('/api/v1/auth/validate-key')).status).toBe(200);
    const other = await stack.seed.project();
    expect((await initiate(other.api, other.projectId)).status).toBe(200);
  });

  it('honours a per-project override', async () => {
    const p = await stack.seed.project({ writeRateLimit: { perSecond: 100, burst: 20 } });
    const results = await Promise.all(Array.from({ length: 10 }, () => initiate(p.api, p.projectId)));
    expect(results.every((r) => r.status === 200)).toBe(true);
  });
});
