import { describe, expect, it } from 'vitest';
import { Authenticator } from './authenticator.ts';
import { generateApiKey } from './api-key.ts';
import type { KeyIdentityRow, KeysRepository } from '../identity/keys-repo.ts';

const row = (over: Partial<KeyIdentityRow> = {}): KeyIdentityRow => ({
  key_id: 'k1',
  device_id: 'dev',
  revoked: false,
  role: 'member',
  user_id: 'u',
  user_name: 'User',
  user_avatar_url: null,
  project_id: 'p',
  project_name: 'Project',
  project_slug: 'project',
  project_icon_url: null,
  write_rate_per_second: null,
  write_rate_burst: null,
  org_id: 'o',
  org_name: 'Org',
  org_slug: 'org',
  ...over,
});

/** A keys repository whose lookups answer when the test says so, counting them. */
function fakeKeys() {
  const pending: ((row: KeyIdentityRow | undefined) => void)[] = [];
  const repo = {
    lookups: 0,
    findIdentityByHash: () => {
      repo.lookups += 1;
      return new Promise<KeyIdentityRow | undefined>((resolve) => pending.push(resolve));
    },
    answer: (value: KeyIdentityRow | undefined) => {
      for (const resolve of pending.splice(0)) resolve(value);
    },
  };
  return repo;
}

describe('Authenticator', () => {
  const key = generateApiKey();
  const bearer = `Bearer ${key}`;

  it('asks the database once for requests that miss together, and not again while cached', async () => {
    const keys = fakeKeys();
    const auth = new Authenticator(keys as unknown as KeysRepository, { ttlMs: 60_000 });
    const together = Promise.all(Array.from({ length: 20 }, () => auth.authenticate(bearer, 'dev')));
    keys.answer(row());
    expect((await together).every((r) => r.key_id === 'k1')).toBe(true);
    await auth.authenticate(bearer, 'dev');
    expect(keys.lookups).toBe(1);
  });

  it('looks a key up again after forgetKey, even when its lookup was still running', async () => {
    const keys = fakeKeys();
    const auth = new Authenticator(keys as unknown as KeysRepository, { ttlMs: 60_000 });
    const before = auth.authenticate(bearer, 'dev');
    auth.forgetKey('k1');
    keys.answer(row());
    await before;
    const after = auth.authenticate(bearer, 'dev');
    keys.answer(row({ revoked: true }));
    await expect(after).rejects.toMatchObject({ code: 'key_revoked' });
    expect(keys.lookups).toBe(2);
  });
});
