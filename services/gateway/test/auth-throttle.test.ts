import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetrics } from '@lode/telemetry/metrics-sdk';
import { createLogger } from '@lode/telemetry';
import { startOpsServer } from '@lode/runtime';
import { startTestStack, type TestStack } from '@lode/system/testing';

// Started after every module is loaded, as in a test process: instruments must bind to it anyway.
startMetrics('lode-auth-throttle-test');

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: Record<string, unknown>;
}

/**
 * One request from a loopback address of the test's choosing (127.0.0.0/8 all reach the gateway's
 * 127.0.0.1), so each test is a client address of its own, as Express reports it.
 */
function send(baseUrl: string, from: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const url = new URL(path, baseUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        localAddress: from,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const unknownKey = () => `lode_${randomBytes(30).toString('hex').slice(0, 40)}`;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Polls until `answer` says what `until` waits for; the deadline only guards a hang. */
async function pollUntil(attempt: () => Promise<Answer>, until: (answer: Answer) => boolean): Promise<Answer> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await attempt();
    if (until(answer)) return answer;
    if (Date.now() > deadline) throw new Error(`still ${answer.status} ${JSON.stringify(answer.body)} after 60 s`);
    await delay(50);
  }
}

const PER_ADDRESS = 5;
const PER_KEY = 3;
const throttled = (per: 'address' | 'key') => ({
  status: 429,
  body: { code: 'too_many_failed_attempts', message: expect.any(String), per, retryAfterSeconds: expect.any(Number) },
});

describe.each(['memory', 'redis'] as const)('failed-authentication budgets (%s limiter)', (limiter) => {
  let stack: TestStack;
  let ops: Awaited<ReturnType<typeof startOpsServer>>;
  // Loopback addresses of this run's own: the Redis buckets are the stack's (a prefix of its own).
  const address = (n: number) => `127.0.${limiter === 'memory' ? 1 : 2}.${n}`;
  const validate = (from: string, headers: Record<string, string>) => send(stack.baseUrl, from, 'POST', '/api/v1/auth/validate-key', headers);

  beforeAll(async () => {
    // A window no test outlasts, so a budget cannot refill mid-test; the recovery test has its own stack.
    stack = await startTestStack({
      bus: 'local',
      limiter,
      authCacheMs: 100,
      authFailureLimits: { perAddress: PER_ADDRESS, perKey: PER_KEY, windowMs: 3_600_000 },
    });
    ops = await startOpsServer({ port: 0, host: '127.0.0.1', logger: createLogger('ops-test', 'silent'), ready: async () => undefined });
  });
  afterAll(async () => {
    await ops?.close();
    await stack?.stop();
  });

  /** Spends the address's budget for API keys with unknown keys, each answered 401 until then. */
  async function spendAddress(from: string): Promise<void> {
    for (let i = 0; i < PER_ADDRESS; i++) expect((await validate(from, bearer(unknownKey()))).status).toBe(401);
  }

  it('answers 429 with Retry-After once an address has spent its budget; other addresses are not held back', async () => {
    const from = address(1);
    await spendAddress(from);
    const refused = await validate(from, bearer(unknownKey()));
    expect(refused).toMatchObject(throttled('address'));
    expect(refused.body.valid).toBe(false);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBe(refused.body.retryAfterSeconds);
    // A malformed key is refused too, as is a project route, before anything else is looked at.
    expect(await validate(from, bearer('lode_short'))).toMatchObject(throttled('address'));
    expect(await send(stack.baseUrl, from, 'GET', `/api/v1/projects/${crypto.randomUUID()}/branches`, bearer(unknownKey()))).toMatchObject(
      throttled('address'),
    );
    // No key is no attempt.
    expect((await validate(from, {})).body.code).toBe('missing_key');

    expect((await validate(address(2), bearer(unknownKey()))).body.code).toBe('invalid_key');
  });

  it('keeps a correct key working throughout, from another address and from the throttled one', async () => {
    const p = await stack.seed.project();
    const own = { ...bearer(p.key), 'x-device-id': p.deviceId };
    const from = address(3);
    expect((await validate(from, own)).status).toBe(200);
    await spendAddress(from);
    // Known good to this gateway: let through, and looked up again each time its cache entry expires.
    const until = Date.now() + 500;
    while (Date.now() < until) {
      expect((await validate(from, own)).status).toBe(200);
      expect((await send(stack.baseUrl, from, 'GET', `/api/v1/projects/${p.projectId}/branches`, own)).status).toBe(200);
    }
    // A key this gateway has not yet seen succeed is held back with the guesses from the spent address,
    // and works from any other.
    const fresh = await stack.seed.project();
    const freshHeaders = { ...bearer(fresh.key), 'x-device-id': fresh.deviceId };
    expect(await validate(from, freshHeaders)).toMatchObject(throttled('address'));
    expect((await validate(address(4), freshHeaders)).status).toBe(200);
  });

  it("spends a key's own budget from any address, never another key's", async () => {
    const guessed = bearer(unknownKey());
    for (let i = 0; i < PER_KEY; i++) expect((await validate(address(10 + i), guessed)).body.code).toBe('invalid_key');
    const from = address(20);
    expect(await validate(from, guessed)).toMatchObject(throttled('key'));
    // That refusal spent nothing of the address's budget: every other key from it is still examined.
    for (let i = 0; i < PER_ADDRESS; i++) expect((await validate(from, bearer(unknownKey()))).body.code).toBe('invalid_key');
    expect(await validate(from, bearer(unknownKey()))).toMatchObject(throttled('address'));
  });

  it("does not let a key's failures on other devices lock out its own device", async () => {
    const p = await stack.seed.project();
    const own = { ...bearer(p.key), 'x-device-id': p.deviceId };
    expect((await validate(address(30), own)).status).toBe(200);
    const stranger = { ...bearer(p.key), 'x-device-id': 'not-the-device' };
    for (let i = 0; i < PER_KEY; i++) expect((await validate(address(31 + i), stranger)).body.code).toBe('device_mismatch');
    expect(await validate(address(40), stranger)).toMatchObject(throttled('key'));
    const until = Date.now() + 300;
    while (Date.now() < until) expect((await validate(address(41), own)).status).toBe(200);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const from = address(50);
    for (let i = 0; i < PER_ADDRESS; i++) expect((await validate(from, { ...bearer(unknownKey()), 'x-forwarded-for': `198.51.100.${i}` })).status).toBe(401);
    expect(await validate(from, { ...bearer(unknownKey()), 'x-forwarded-for': '198.51.100.99' })).toMatchObject(throttled('address'));
  });

  it('throttles wrong admin tokens per address, refusing even the right one from a spent address', async () => {
    const from = address(60);
    const orgs = (headers: Record<string, string>, at = from) => send(stack.baseUrl, at, 'GET', '/admin/v1/orgs', headers);
    expect((await orgs(bearer(stack.adminToken))).status).toBe(200);
    for (let i = 0; i < PER_ADDRESS; i++) expect((await orgs(bearer(`wrong-${randomBytes(8).toString('hex')}`))).body.code).toBe('unauthorized');
    const refused = await orgs(bearer('wrong-again'));
    expect(refused).toMatchObject(throttled('address'));
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(await orgs(bearer(stack.adminToken))).toMatchObject(throttled('address'));
    expect((await orgs(bearer(stack.adminToken), address(61))).status).toBe(200);
    // The admin token's budget is its own: API keys from that address are still examined.
    expect((await validate(from, bearer(unknownKey()))).body.code).toBe('invalid_key');
  });

  it('throttles unknown sign-in link tokens per address', async () => {
    const from = address(70);
    const signIn = () => send(stack.baseUrl, from, 'POST', '/api/v1/session', {}, { token: randomBytes(32).toString('base64url') });
    for (let i = 0; i < PER_ADDRESS; i++) expect((await signIn()).body.code).toBe('unauthorized');
    expect(await signIn()).toMatchObject(throttled('address'));
    // A malformed token is refused on its shape, with no lookup and no budget.
    expect((await send(stack.baseUrl, from, 'POST', '/api/v1/session', {}, { token: 'short' })).status).toBe(400);
  });

  it('counts refused attempts in lode_auth_throttled_total', async () => {
    const text = await (await fetch(`http://127.0.0.1:${(ops.server.address() as AddressInfo).port}/metrics`)).text();
    const lines = text.split('\n').filter((line) => line.startsWith('lode_auth_throttled_total{'));
    expect(lines.some((line) => line.includes('credential="api-key"') && line.includes('per="address"'))).toBe(true);
    expect(lines.some((line) => line.includes('credential="api-key"') && line.includes('per="key"'))).toBe(true);
    expect(lines.some((line) => line.includes('credential="admin-token"'))).toBe(true);
  });

  it('gives the budget back as its window passes', async () => {
    const short = await startTestStack({ bus: 'local', limiter, authFailureLimits: { perAddress: 2, perKey: 100, windowMs: 2000 } });
    try {
      const from = address(80);
      const attempt = () => send(short.baseUrl, from, 'POST', '/api/v1/auth/validate-key', bearer(unknownKey()));
      await pollUntil(attempt, (answer) => answer.status === 429);
      const recovered = await pollUntil(attempt, (answer) => answer.status !== 429);
      expect(recovered.body.code).toBe('invalid_key');
    } finally {
      await short.stop();
    }
  });
});
