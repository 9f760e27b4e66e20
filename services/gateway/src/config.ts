import { z } from 'zod';
import { env } from '@lode/config';
import { busSettings } from '@lode/bus';

/** The gateway's settings, shared by its own process and the embedded all-in-one process. */
export const gatewaySettings = {
  PORT: env.port(8080),
  LODE_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Default per-project write budget: a steady rate and a burst (token bucket). */
  LODE_WRITE_RATE_PER_SECOND: z.coerce.number().positive().default(50),
  LODE_WRITE_RATE_BURST: env.int(100, 1),
  /** How long an API key's identity is cached; bounds how late a revocation takes effect. */
  LODE_AUTH_CACHE_MS: env.int(5000),
  LODE_BODY_LIMIT: z.string().default('16mb'),
  LOG_LEVEL: env.logLevel(),
  /** OpenID Connect sign-in to the dashboard: all three, or none (links only). */
  LODE_OIDC_ISSUER: z.url().optional(),
  LODE_OIDC_CLIENT_ID: z.string().min(1).optional(),
  LODE_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
};

export const gatewayEnvSchema = z.object({
  ...gatewaySettings,
  ...busSettings,
  REDIS_URL: env.url(),
  LODE_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters'),
});
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;

type GatewaySettings = {
  LODE_WRITE_RATE_PER_SECOND: number;
  LODE_WRITE_RATE_BURST: number;
  LODE_AUTH_CACHE_MS: number;
  LODE_BODY_LIMIT: string;
  LODE_OIDC_ISSUER?: string | undefined;
  LODE_OIDC_CLIENT_ID?: string | undefined;
  LODE_OIDC_CLIENT_SECRET?: string | undefined;
};

function oidcSettings(config: GatewaySettings) {
  const { LODE_OIDC_ISSUER: issuer, LODE_OIDC_CLIENT_ID: clientId, LODE_OIDC_CLIENT_SECRET: clientSecret } = config;
  if (!issuer && !clientId && !clientSecret) return undefined;
  if (!issuer || !clientId || !clientSecret) throw new Error('Set LODE_OIDC_ISSUER, LODE_OIDC_CLIENT_ID and LODE_OIDC_CLIENT_SECRET together, or none of them');
  return { issuer, clientId, clientSecret };
}

/** The tuning part of the gateway's dependencies, read from its settings in either mode. */
export function gatewayTuning(config: GatewaySettings) {
  return {
    defaultWriteLimit: { perSecond: config.LODE_WRITE_RATE_PER_SECOND, burst: config.LODE_WRITE_RATE_BURST },
    authCacheMs: config.LODE_AUTH_CACHE_MS,
    bodyLimit: config.LODE_BODY_LIMIT,
    oidc: oidcSettings(config),
  };
}
