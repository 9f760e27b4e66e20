import { describe, expect, it } from 'vitest';
import { identity } from '@lode/contracts';
import { generateApiKey, keyHint } from './api-key.ts';

describe('api keys', () => {
  it('are lode_ plus 40 base62 characters, different every time', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^lode_[0-9A-Za-z]{40}$/);
    expect(generateApiKey()).not.toBe(a);
    expect(keyHint(a)).toBe(a.slice(-4));
  });
  it('are found by the hex SHA-256 of the whole key', () => {
    expect(identity.apiKeyHash('lode_x')).toMatch(/^[0-9a-f]{64}$/);
    expect(identity.apiKeyHash('lode_x')).not.toBe(identity.apiKeyHash('lode_y'));
  });
});
