import { describe, expect, it } from 'vitest';
import { baseUrl } from './settings.ts';

describe("the server's base URL given to lode login or LODE_URL", () => {
  it('is taken without a trailing slash or the API prefix, a path the server lives under kept', () => {
    expect(baseUrl('https://lode.example.com/')).toBe('https://lode.example.com');
    expect(baseUrl('http://localhost:8080/api/v1/')).toBe('http://localhost:8080');
    expect(baseUrl('https://tools.example.com/lode/api/v1')).toBe('https://tools.example.com/lode');
    expect(baseUrl('https://tools.example.com/lode')).toBe('https://tools.example.com/lode');
  });

  it('is refused without http(s):// or with a query, saying what is expected', () => {
    for (const bad of ['localhost:8080', 'lode.example.com', 'ftp://lode.example.com', ''])
      expect(() => baseUrl(bad)).toThrow(/with its scheme, e\.g\. https:\/\//);
    expect(() => baseUrl('https://lode.example.com/?project=1')).toThrow(/without a query/);
  });
});
