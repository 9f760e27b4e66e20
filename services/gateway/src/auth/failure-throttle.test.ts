import { describe, expect, it } from 'vitest';
import { errors } from '@lode/errors';
import { MemoryWriteLimiter } from '../ratelimit/memory-limiter.ts';
import { addressBudgetName, FailureThrottle } from './failure-throttle.ts';

const KEY = `lode_${'a1B2'.repeat(10)}`;
const OTHER_KEY = `lode_${'c3D4'.repeat(10)}`;

describe('addressBudgetName', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:DB8:0001::', '2001:db8:1:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
  ])('counts %s as %s', (ip, name) => {
    expect(addressBudgetName(ip)).toBe(name);
  });
});

describe('FailureThrottle', () => {
  const limits = { perAddress: 3, perKey: 2, windowMs: 3_600_000 };
  const fail = () => Promise.reject(errors.invalidKey());
  const succeed = () => Promise.resolve('ok');

  it('refuses with 429 before examining once the address has spent its budget, and counts no success', async () => {
    const throttle = new FailureThrottle(new MemoryWriteLimiter(), limits);
    for (let i = 0; i < 5; i++) await throttle.attempt(throttle.byAddress('admin-token', 'a'), succeed);
    for (let i = 0; i < 3; i++) await expect(throttle.attempt(throttle.byAddress('admin-token', 'a'), fail)).rejects.toMatchObject({ code: 'invalid_key' });
    let examined = false;
    const refused = throttle.attempt(throttle.byAddress('admin-token', 'a'), async () => {
      examined = true;
      return 'ok';
    });
    await expect(refused).rejects.toMatchObject({ code: 'too_many_failed_attempts', details: { per: 'address', retryAfterSeconds: expect.any(Number) } });
    expect(examined).toBe(false);
    // Another address, and another credential from the same address, keep their own budgets.
    await expect(throttle.attempt(throttle.byAddress('admin-token', 'b'), succeed)).resolves.toBe('ok');
    await expect(throttle.attempt(throttle.byAddress('sign-in-link', 'a'), succeed)).resolves.toBe('ok');
  });

  it("spends one key's budget from any address, and gives the address back its token when the key refuses", async () => {
    const throttle = new FailureThrottle(new MemoryWriteLimiter(), limits);
    await expect(throttle.attempt(throttle.apiKey('a', KEY), fail)).rejects.toMatchObject({ code: 'invalid_key' });
    await expect(throttle.attempt(throttle.apiKey('b', KEY), fail)).rejects.toMatchObject({ code: 'invalid_key' });
    for (let i = 0; i < 5; i++) await expect(throttle.attempt(throttle.apiKey('c', KEY), fail)).rejects.toMatchObject({ details: { per: 'key' } });
    // Address c's refused attempts took nothing from it: its whole budget is left for other keys.
    for (let i = 0; i < 3; i++) await expect(throttle.attempt(throttle.apiKey('c', `${OTHER_KEY}${i}`), fail)).rejects.toMatchObject({ code: 'invalid_key' });
    await expect(throttle.attempt(throttle.apiKey('c', OTHER_KEY), fail)).rejects.toMatchObject({ details: { per: 'address' } });
  });

  it('counts only wrong credentials: other errors give the tokens back', async () => {
    const throttle = new FailureThrottle(new MemoryWriteLimiter(), limits);
    for (let i = 0; i < 5; i++) {
      await expect(throttle.attempt(throttle.apiKey('a', KEY), () => Promise.reject(errors.serviceUnavailable('identity')))).rejects.toMatchObject({
        code: 'service_unavailable',
      });
      await expect(throttle.attempt(throttle.apiKey('a', KEY), () => Promise.reject(errors.validation('bad device')))).rejects.toMatchObject({
        code: 'validation_failed',
      });
    }
    await expect(throttle.attempt(throttle.apiKey('a', KEY), succeed)).resolves.toBe('ok');
  });

  it('counts the failure of an attempt let through unchecked', async () => {
    const throttle = new FailureThrottle(new MemoryWriteLimiter(), limits);
    for (let i = 0; i < 2; i++)
      await expect(throttle.unchecked(throttle.apiKey('a', KEY), () => Promise.reject(errors.keyRevoked()))).rejects.toMatchObject({ code: 'key_revoked' });
    await expect(throttle.attempt(throttle.apiKey('b', KEY), succeed)).rejects.toMatchObject({ code: 'too_many_failed_attempts', details: { per: 'key' } });
  });
});
