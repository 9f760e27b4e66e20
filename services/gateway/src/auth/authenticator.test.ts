import { describe, expect, it } from 'vitest';
import type { identity } from '@lode/contracts';
import { Authenticator } from './authenticator.ts';
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
});
