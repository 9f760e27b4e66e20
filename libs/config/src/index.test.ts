import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, env, loadConfig } from './index.ts';

describe('loadConfig', () => {
  const schema = z.object({ PORT: env.port(8080), DATABASE_URL: env.url(), DEBUG: env.flag(false) });

  it('applies defaults and coerces types', () => {
    expect(loadConfig(schema, { DATABASE_URL: 'postgres://x/y', DEBUG: 'yes' })).toEqual({
      PORT: 8080,
      DATABASE_URL: 'postgres://x/y',
      DEBUG: true,
    });
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig(schema, { PORT: 'eighty', DATABASE_URL: 'not a url' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems.some((p) => p.startsWith('PORT:'))).toBe(true);
      expect(problems.some((p) => p.startsWith('DATABASE_URL:'))).toBe(true);
    }
  });
});
