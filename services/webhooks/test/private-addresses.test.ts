import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhooks } from '@lode/contracts';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { sendDelivery } from '../src/domain/sender.ts';
import { standaloneWebhooks } from './standalone.ts';

/** The webhooks service as deployed: private targets refused (LODE_WEBHOOK_ALLOW_PRIVATE unset). */
describe('webhooks refuse private, loopback and link-local targets', () => {
  const alone = standaloneWebhooks({ allowPrivate: false });

  const manager = { projectId: randomUUID(), role: 'owner' as const };

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://10.0.0.5/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://localhost:9464/metrics',
    'http://203.0.113.10/hook',
    'http://[2001:db8::1]/hook',
  ])('refuses %s when the webhook is saved (400)', async (url) => {
    await expect(alone.bus.call(webhooks.create, { manager, url, events: ['lock.acquired'] })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('refuses a name that resolves to a private address without saying what it resolved to', async () => {
    const refused: unknown = await alone.bus
      .call(webhooks.create, { manager, url: 'http://localhost:9464/metrics', events: ['lock.acquired'] })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'validation_failed', details: { issues: [{ path: 'url', message: 'destination not allowed' }] } });
    const { message } = refused as Error;
    expect(message).toMatch(/not allowed/);
    expect(message).not.toMatch(/127\.0\.0\.1|::1|private/);
  });

  it('accepts a public address', async () => {
    const created = await alone.bus.call(webhooks.create, { manager, url: 'https://8.8.8.8/hook', events: ['lock.acquired'] });
    expect(created.url).toBe('https://8.8.8.8/hook');
  });

  it('refuses at delivery a name that resolves to a private address, without connecting', async () => {
    let reached = false;
    const server = createServer((_req, res) => {
      reached = true;
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const delivery = { secret: `whsec_${Buffer.alloc(24).toString('base64')}`, eventId: randomUUID(), body: '{}' };
      // A name saved while it resolved elsewhere and rebound to loopback since, and the literal address.
      for (const url of [`http://localhost:${port}/hook`, `http://127.0.0.1:${port}/hook`]) {
        const result = await sendDelivery({ ...delivery, url }, { timeoutMs: 2000, allowPrivate: false });
        expect(result).toMatchObject({ kind: 'refused', error: expect.stringMatching(/not allowed/) });
        // The delivery log shows the project this error: what the name resolved to stays out of it.
        expect(result.kind === 'refused' && result.error, url).not.toMatch(/127\.0\.0\.1|::1|private/);
      }
      expect(reached).toBe(false);
      expect(await sendDelivery({ ...delivery, url: `http://localhost:${port}/hook` }, { timeoutMs: 2000, allowPrivate: true })).toMatchObject({
        kind: 'answered',
        status: 204,
      });
    } finally {
      server.close();
    }
  });

  it('logs an unreachable destination without the address it resolved to', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const delivery = { secret: `whsec_${Buffer.alloc(24).toString('base64')}`, eventId: randomUUID(), body: '{}', url: `http://localhost:${port}/hook` };
    const result = await sendDelivery(delivery, { timeoutMs: 2000, allowPrivate: true });
    expect(result).toMatchObject({ kind: 'unreachable', error: expect.stringMatching(/not reachable \(ECONNREFUSED\)/) });
    expect(result.kind === 'unreachable' && result.error).not.toMatch(/127\.0\.0\.1|::1/);
  });
});

describe.each(['local', 'nats'] as const)('through the gateway, as deployed (%s bus)', (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus, environment: { LODE_WEBHOOK_ALLOW_PRIVATE: 'false' } });
  });
  afterAll(async () => stack?.stop());

  it('refuses to save a webhook to a private address: 400 validation_failed naming url, on create and on change', async () => {
    const owner = await stack.seed.project();
    const hooks = `/api/v1/projects/${owner.projectId}/webhooks`;
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://[::ffff:10.0.0.5]/hook',
      'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
      'http://100.64.0.1/hook',
      'http://[::ffff:c000:201]/hook',
      'http://[fec0::1]/hook',
    ]) {
      const refused = await owner.api.post(hooks, { url, events: ['lock.acquired'] });
      expect(refused, url).toMatchObject({ status: 400, body: { code: 'validation_failed', issues: [{ path: 'url', message: 'destination not allowed' }] } });
      expect(refused.body.message).toMatch(/not allowed/);
    }
    expect((await owner.api.get(hooks)).body.data).toEqual([]);

    const created = await owner.api.post(hooks, { url: 'https://8.8.8.8/hook', events: ['lock.acquired'] });
    expect(created.status).toBe(201);
    const moved = await owner.api.request('PATCH', `${hooks}/${created.body.id}`, { url: 'http://169.254.169.254/latest/meta-data' });
    expect(moved).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    expect((await owner.api.get(`${hooks}/${created.body.id}`)).body.url).toBe('https://8.8.8.8/hook');
  });
});
