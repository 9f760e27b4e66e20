import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identity } from '@lode/contracts';
import { startTestStack, type TestStack } from '@lode/system/testing';

describe('keys on the request path (lode.identity.v1)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'nats' });
  });
  afterAll(async () => stack?.stop());

  it('resolves a key by its hash to the flat identity the gateway caches, and an unknown hash to null', async () => {
    const p = await stack.seed.project({ writeRateLimit: { perSecond: 2.5, burst: 7 } });
    const { identity: found } = await stack.bus.call(identity.resolveKey, { keyHash: identity.apiKeyHash(p.key) });
    expect(found).toEqual({
      keyId: p.keyId,
      deviceId: null,
      revoked: false,
      role: 'owner',
      userId: p.userId,
      userName: expect.any(String),
      userAvatarUrl: null,
      projectId: p.projectId,
      projectName: expect.any(String),
      projectSlug: expect.stringMatching(/^game-/),
      projectIconUrl: null,
      writeRatePerSecond: 2.5,
      writeRateBurst: 7,
      orgId: p.orgId,
      orgName: expect.any(String),
      orgSlug: expect.stringMatching(/^org-/),
      projectPurgeAfter: null,
      projectPurgedAt: null,
    });
    const unknown = identity.apiKeyHash(`lode_${randomBytes(20).toString('hex')}`);
    expect(await stack.bus.call(identity.resolveKey, { keyHash: unknown })).toEqual({ identity: null });
  });

  it('says a revoked key is revoked rather than unknown', async () => {
    const p = await stack.seed.project();
    await stack.seed.admin.delete(`/admin/v1/keys/${p.keyId}`);
    const { identity: found } = await stack.bus.call(identity.resolveKey, { keyHash: identity.apiKeyHash(p.key) });
    expect(found).toMatchObject({ keyId: p.keyId, revoked: true });
  });

  it('binds a key to the first of many devices racing, and answers every one with that device', async () => {
    const p = await stack.seed.project();
    const devices = Array.from({ length: 10 }, (_, i) => `device-${i}`);
    const answers = await Promise.all(devices.map((deviceId) => stack.bus.call(identity.bindDevice, { keyId: p.keyId, deviceId })));
    const winner = answers[0].deviceId;
    expect(devices).toContain(winner);
    expect(answers).toEqual(devices.map(() => ({ deviceId: winner })));
    const { identity: found } = await stack.bus.call(identity.resolveKey, { keyHash: identity.apiKeyHash(p.key) });
    expect(found?.deviceId).toBe(winner);
  });

  it('refuses a device id the gateway would refuse, at the contract', async () => {
    const p = await stack.seed.project();
    await expect(stack.bus.call(identity.bindDevice, { keyId: p.keyId, deviceId: 'has space' })).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
