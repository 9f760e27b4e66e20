import { describe, expect, it } from 'vitest';
import { bearerToken, looksLikeApiKey } from './api-key.ts';

describe('api keys at the edge', () => {
  it('reject malformed input before any lookup', () => {
    expect(looksLikeApiKey(`lode_${'A1b2'.repeat(10)}`)).toBe(true);
    expect(looksLikeApiKey('lode_short')).toBe(false);
    expect(looksLikeApiKey(`other_${'a'.repeat(40)}`)).toBe(false);
  });
  it('are read from a Bearer header only', () => {
    expect(bearerToken('Bearer lode_x')).toBe('lode_x');
    expect(bearerToken('bearer   lode_x')).toBe('lode_x');
    expect(bearerToken('Basic lode_x')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
