import { describe, expect, it } from 'vitest';
import { identity } from '@lode/contracts';
import { MemoryWriteLimiter } from '../ratelimit/memory-limiter.ts';
import { Authenticator } from './authenticator.ts';
import { FailureThrottle } from './failure-throttle.ts';
import type { KeyDirectory } from './key-directory.ts';

const KEY = `lode_${'a1B2'.repeat(10)}`;

const found = (over: Partial<identity.KeyIdentity> = {}): identity.KeyIdentity => ({
  keyId: 'k1',
  deviceId: 'dev',
  revoked: false,
  role: 'member',
  userId: 'u',
  userName: 'User',
  userAvatarUrl: null,
  projectId: 'p',
  projectName: 'Project',
  projectSlug: 'project',
  projectIconUrl: null,
  writeRatePerSecond: null,
  writeRateBurst: null,
  orgId: 'o',
  orgName: 'Org',
  orgSlug: 'org',
  projectPurgeAfter: null,
  projectPurgedAt: null,
  ...over,
});

/** A key directory whose lookups answer when the test says so, counting them. */
function fakeKeys() {
  const pending: ((value: identity.KeyIdentity | undefined) => void)[] = [];
  const directory = {
    lookups: 0,
    resolve: () => {
      directory.lookups += 1;
      return new Promise<identity.KeyIdentity | undefined>((resolve) => pending.push(resolve));
    },
    bindDevice: () => Promise.resolve(null),
    answer: (value: identity.KeyIdentity | undefined) => {
      for (const resolve of pending.splice(0)) resolve(value);
    },
  } satisfies KeyDirectory & Record<string, unknown>;
  return directory;
}

describe('Authenticator', () => {
  const bearer = `Bearer ${KEY}`;

  it('asks the identity service once for requests that miss together, and not again while cached', async () => {
    const keys = fakeKeys();
    const auth = new Authenticator(keys, { ttlMs: 60_000 });
    const together = Promise.all(Array.from({ length: 20 }, () => auth.authenticate(bearer, 'dev')));
    keys.answer(found());
    expect((await together).every((r) => r.keyId === 'k1')).toBe(true);
    await auth.authenticate(bearer, 'dev');
    expect(keys.lookups).toBe(1);
  });

  it('looks a key up again after forgetKey, even when its lookup was still running', async () => {
    const keys = fakeKeys();
    const auth = new Authenticator(keys, { ttlMs: 60_000 });
    const before = auth.authenticate(bearer, 'dev');
    auth.forgetKey('k1');
    keys.answer(found());
    await before;
    const after = auth.authenticate(bearer, 'dev');
    keys.answer(found({ revoked: true }));
    await expect(after).rejects.toMatchObject({ code: 'key_revoked' });
    expect(keys.lookups).toBe(2);
  });

  it("refuses a deleted project's key with when it is purged, a purged one's with when it was; forgetProject drops the project's keys, not others'", async () => {
    const keys = fakeKeys();
    const auth = new Authenticator(keys, { ttlMs: 60_000 });
    const first = auth.authenticate(bearer, 'dev');
    keys.answer(found());
    await first;
    auth.forgetProject('another project');
    await auth.authenticate(bearer, 'dev');
    expect(keys.lookups).toBe(1);

    auth.forgetProject('p');
    const after = auth.authenticate(bearer, 'dev');
    keys.answer(found({ projectPurgeAfter: '2026-12-06T10:00:00.000Z' }));
    await expect(after).rejects.toMatchObject({ code: 'project_deleted', details: { purgeAfter: '2026-12-06T10:00:00.000Z' } });
    expect(keys.lookups).toBe(2);

    auth.forgetProject('p');
    const purged = auth.authenticate(bearer, 'dev');
    keys.answer(found({ projectPurgeAfter: '2026-12-06T10:00:00.000Z', projectPurgedAt: '2026-12-06T10:00:01.000Z' }));
    await expect(purged).rejects.toMatchObject({ code: 'project_purged', details: { purgedAt: '2026-12-06T10:00:01.000Z' } });
  });

  describe('with a budget of failures', () => {
    /** A key directory that knows one key (KEY, bound to 'dev'), counting its lookups. */
    function directory() {
      const keys = {
        lookups: 0,
        /** While set, KEY's lookups wait for it to be called. */
        held: undefined as Promise<void> | undefined,
        resolve: async (hash: string) => {
          keys.lookups += 1;
          if (hash !== identity.apiKeyHash(KEY)) return undefined;
          await keys.held;
          return found({ deviceId: 'dev' });
        },
        bindDevice: () => Promise.resolve(null),
      } satisfies KeyDirectory & Record<string, unknown>;
      return keys;
    }
    const throttled = (keys: KeyDirectory, ttlMs: number) =>
      new Authenticator(keys, { ttlMs, throttle: new FailureThrottle(new MemoryWriteLimiter(), { perAddress: 2, perKey: 5, windowMs: 3_600_000 }) });

    /** Spends the address's budget with unknown keys. */
    async function spendAddress(auth: Authenticator, address: string): Promise<void> {
      for (let i = 0; i < 2; i++) {
        await expect(auth.authenticate(`Bearer lode_${String(i).padStart(40, 'x')}`, undefined, address)).rejects.toMatchObject({ code: 'invalid_key' });
      }
    }

    it('refuses a key it does not know from a spent address without looking it up', async () => {
      const keys = directory();
      const auth = throttled(keys, 60_000);
      await spendAddress(auth, 'a');
      expect(keys.lookups).toBe(2);
      await expect(auth.authenticate(bearer, 'dev', 'a')).rejects.toMatchObject({ code: 'too_many_failed_attempts' });
      expect(keys.lookups).toBe(2);
    });

    it('lets a key it last found good through a spent address, looking it up again once expired', async () => {
      const keys = directory();
      const auth = throttled(keys, 1);
      expect((await auth.authenticate(bearer, 'dev', 'a')).keyId).toBe('k1');
      await spendAddress(auth, 'a');
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await auth.authenticate(bearer, 'dev', 'a')).keyId).toBe('k1');
      expect(keys.lookups).toBe(4);
      // The same key from another device would fail: the spent budget holds it back, unlooked-up.
      await expect(auth.authenticate(bearer, 'laptop', 'a')).rejects.toMatchObject({ code: 'too_many_failed_attempts' });
      expect(keys.lookups).toBe(4);
    });

    it('still lets a key it found good through while its next lookup runs', async () => {
      const keys = directory();
      const auth = throttled(keys, 1);
      expect((await auth.authenticate(bearer, 'dev', 'a')).keyId).toBe('k1');
      await spendAddress(auth, 'a');
      await new Promise((resolve) => setTimeout(resolve, 5));
      let release!: () => void;
      keys.held = new Promise<void>((resolve) => (release = resolve));
      const first = auth.authenticate(bearer, 'dev', 'a');
      await expect.poll(() => keys.lookups).toBe(4);
      const second = auth.authenticate(bearer, 'dev', 'a');
      release();
      expect((await Promise.all([first, second])).map((found) => found.keyId)).toEqual(['k1', 'k1']);
    });
  });
});
