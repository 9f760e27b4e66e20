import { randomBytes, createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { allPages, LodeAdminClient, LodeApiError, LodeClient, type RetryEvent } from '../src/index.ts';

function content() {
  const bytes = randomBytes(64);
  return { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, contentMd5: createHash('md5').update(bytes).digest('base64') };
}

interface Refusal {
  status: number;
  retryAfter: string;
  body: Record<string, unknown>;
}

const BUSY: Refusal = { status: 503, retryAfter: '1', body: { code: 'service_unavailable', message: 'busy', retryAfterSeconds: 1 } };

/** A proxy in front of the gateway that answers the first `refusals` requests as `refusal` says (by default 503 with Retry-After: 1, as a busy service does). */
async function flakyProxy(target: string, refusals: number, refusal: Refusal = BUSY): Promise<{ url: string; seen: () => number; close: () => Promise<void> }> {
  let seen = 0;
  const server = http.createServer((req, res) => {
    seen++;
    if (seen <= refusals) {
      res.writeHead(refusal.status, { 'content-type': 'application/json', 'retry-after': refusal.retryAfter });
      res.end(JSON.stringify(refusal.body));
      return;
    }
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen: () => seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe.each(['local', 'nats'] as const)('the SDK retries what the server says to retry (%s bus)', (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  it("waits out a 429's Retry-After and then succeeds", async () => {
    const project = await stack.seed.project({ writeRateLimit: { perSecond: 1, burst: 1 } });
    const retries: RetryEvent[] = [];
    const client = new LodeClient({ url: stack.baseUrl, key: project.key, deviceId: project.deviceId, onRetry: (e) => retries.push(e) });
    const first = await client.initiateBatch([{ path: 'a.bin', ...content() }]);
    const second = await client.initiateBatch([{ path: 'b.bin', ...content() }]);
    expect(first[0]).toMatchObject({ path: 'a.bin', version: 1 });
    expect(second[0]).toMatchObject({ path: 'b.bin', version: 1 });
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatchObject({ method: 'POST', reason: '429 rate_limited' });
    expect(retries[0].delayMs).toBeGreaterThanOrEqual(1000);
  });

  it("retries a 503 after its Retry-After, and gives up with the server's error once its attempts are spent", async () => {
    const project = await stack.seed.project();
    const proxy = await flakyProxy(stack.baseUrl, 2);
    try {
      const retries: RetryEvent[] = [];
      const client = new LodeClient({ url: proxy.url, key: project.key, deviceId: project.deviceId, onRetry: (e) => retries.push(e) });
      expect(await client.validateKey()).toMatchObject({ valid: true, projectId: project.projectId });
      expect(retries.map((r) => [r.reason, r.delayMs])).toEqual([
        ['503 service_unavailable', 1000],
        ['503 service_unavailable', 1000],
      ]);
      expect(proxy.seen()).toBe(3);
    } finally {
      await proxy.close();
    }
    const always = await flakyProxy(stack.baseUrl, Number.POSITIVE_INFINITY);
    try {
      const client = new LodeClient({ url: always.url, key: project.key, deviceId: project.deviceId, retry: { attempts: 2 } });
      await expect(client.validateKey()).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(always.seen()).toBe(2);
    } finally {
      await always.close();
    }
  });

  it("waits for a running request with the same idempotency key (409 idempotency_in_progress) without spending its attempts, then returns that request's result", async () => {
    const project = await stack.seed.project();
    const running = { status: 409, retryAfter: '0', body: { code: 'idempotency_in_progress', message: 'a request with this key is still running' } };
    const proxy = await flakyProxy(stack.baseUrl, 8, running);
    try {
      const retries: RetryEvent[] = [];
      const client = new LodeClient({
        url: proxy.url,
        key: project.key,
        deviceId: project.deviceId,
        projectId: project.projectId,
        retry: { attempts: 2 },
        onRetry: (e) => retries.push(e),
      });
      const draft = await new LodeClient({ url: stack.baseUrl, key: project.key, deviceId: project.deviceId, projectId: project.projectId }).createDraft(
        'import',
      );
      await expect(client.commitDraft(draft.id, { idempotencyKey: 'import-1' })).rejects.toMatchObject({ status: 422, code: 'empty_draft' });
      expect(retries.map((r) => r.reason)).toEqual(Array.from({ length: 8 }, () => '409 idempotency_in_progress'));
      expect(proxy.seen()).toBe(9);
    } finally {
      await proxy.close();
    }
  });

  it('stops waiting when its AbortSignal aborts', async () => {
    const project = await stack.seed.project();
    const always = await flakyProxy(stack.baseUrl, Number.POSITIVE_INFINITY);
    try {
      const client = new LodeClient({ url: always.url, key: project.key, deviceId: project.deviceId, retry: { attempts: 10 } });
      const controller = new AbortController();
      const call = client.validateKey({ signal: controller.signal });
      controller.abort(new Error('user cancelled'));
      await expect(call).rejects.toThrow(/cancelled|abort/i);
      expect(always.seen()).toBeLessThanOrEqual(1);
    } finally {
      await always.close();
    }
  });

  it('sends an admin create once after a 503, which may have made it, and again after a 429, which did nothing; a list is retried', async () => {
    const admin = (url: string) => new LodeAdminClient({ url, token: stack.adminToken, retry: { attempts: 3 } });
    const named = async (name: string) => (await allPages((cursor) => admin(stack.baseUrl).listUsers({ limit: 200, cursor }))).filter((u) => u.name === name);
    const name = `Once-${randomBytes(4).toString('hex')}`;
    for (const call of ['create', 'list'] as const) {
      const busy = await flakyProxy(stack.baseUrl, 1);
      try {
        if (call === 'create') await expect(admin(busy.url).createUser({ name })).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
        else expect(await admin(busy.url).listOrgs({ limit: 1 })).toMatchObject({ data: [{ id: expect.any(String) }] });
        expect(busy.seen()).toBe(call === 'create' ? 1 : 2);
      } finally {
        await busy.close();
      }
    }
    const throttled = await flakyProxy(stack.baseUrl, 1, { status: 429, retryAfter: '0', body: { code: 'too_many_failed_attempts', message: 'wait' } });
    try {
      expect(await admin(throttled.url).createUser({ name })).toMatchObject({ name });
      expect(throttled.seen()).toBe(2);
    } finally {
      await throttled.close();
    }
    expect(await named(name)).toHaveLength(1);
  });

  it('does not retry a refusal (4xx): it surfaces as a LodeApiError with code and status', async () => {
    const project = await stack.seed.project();
    const client = new LodeClient({ url: stack.baseUrl, key: `lode_${'x'.repeat(40)}`, deviceId: project.deviceId, projectId: project.projectId });
    const error = await client.listCommits().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LodeApiError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_key' });
  });
});
