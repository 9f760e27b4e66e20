import { z } from 'zod';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Reads the process's configuration once, in main. Every bad variable is reported at once so an
 * operator fixes a deployment in one pass instead of one restart per typo.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`));
}

/** Environment values arrive as strings; these helpers give them types with sane defaults. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  int: (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback),
  url: () => z.url(),
  flag: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};
