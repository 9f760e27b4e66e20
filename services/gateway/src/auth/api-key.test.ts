import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-key.ts';

describe('api keys', () => {
  it('are lode_ plus 40 base62 characters, different every time', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^lode_[0-9A-Za-z]{40}$/);
    expect(generateApiKey()).not.toBe(a);
    expect(looksLikeApiKey(a)).toBe(true);
  });
  it('hash to 32 bytes and reject malformed input before any lookup', () => {
    expect(hashApiKey('lode_x')).toHaveLength(32);
    expect(looksLikeApiKey('lode_short')).toBe(false);
    expect(looksLikeApiKey(`other_${'a'.repeat(40)}`)).toBe(false);
  });
});
