import { z } from 'zod';
import { env } from '@lode/config';
import { busSettings } from '@lode/bus';
import { DEFAULT_GATEWAY_PORT } from '@lode/storage';
import { DEFAULT_AUTH_FAILURE_LIMITS } from './auth/failure-throttle.ts';

/** Express's 'trust proxy': true, false, a number of hops, or comma-separated addresses, subnets and names. */
export type TrustProxy = boolean | number | string;

function trustProxy(value: string): TrustProxy {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** The gateway's settings, shared by its own process and the embedded all-in-one process. */
export const gatewaySettings = {
  PORT: env.port(DEFAULT_GATEWAY_PORT),
  LODE_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Default per-project write budget: a steady rate and a burst (token bucket). */
  LODE_WRITE_RATE_PER_SECOND: z.coerce.number().positive().default(50),
  LODE_WRITE_RATE_BURST: env.int(100, 1),
  /** How long an API key's identity is cached; bounds how late a revocation takes effect. */
  LODE_AUTH_CACHE_MS: env.int(5000),
  /**
   * Failed authentications let through per window before further attempts answer 429: per client
   * address for each kind of credential (API key, admin token, sign-in link), and per API key.
   */
  LODE_AUTH_FAILURES_PER_ADDRESS: env.int(DEFAULT_AUTH_FAILURE_LIMITS.perAddress, 1),
  LODE_AUTH_FAILURES_PER_KEY: env.int(DEFAULT_AUTH_FAILURE_LIMITS.perKey, 1),
  LODE_AUTH_FAILURE_WINDOW_MS: env.int(DEFAULT_AUTH_FAILURE_LIMITS.windowMs, 1000),
  LODE_BODY_LIMIT: z.string().default('16mb'),
  /** Longest silence on a live event feed: a keep-alive comment keeps proxies from closing it. */
  LODE_FEED_HEARTBEAT_MS: env.int(10_000, 100),
  LOG_LEVEL: env.logLevel(),
  /** OpenID Connect sign-in to the dashboard: all three, or none (links only). */
  LODE_OIDC_ISSUER: z.url().optional(),
  LODE_OIDC_CLIENT_ID: z.string().min(1).optional(),
  LODE_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /**
   * Which peers' X-Forwarded-Proto, -Host and -For the gateway believes (Express's 'trust proxy'):
   * behind a TLS-terminating proxy they make the session cookies Secure and, without
   * LODE_PUBLIC_URL, the sign-in URLs https. Loopback by default, so a proxy on the same machine
   * works and a client elsewhere cannot pretend to be one.
   */
  LODE_TRUST_PROXY: z.string().min(1).default('loopback').transform(trustProxy),
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
  LODE_AUTH_FAILURES_PER_ADDRESS: number;
  LODE_AUTH_FAILURES_PER_KEY: number;
  LODE_AUTH_FAILURE_WINDOW_MS: number;
  LODE_BODY_LIMIT: string;
  LODE_FEED_HEARTBEAT_MS: number;
  LODE_OIDC_ISSUER?: string | undefined;
  LODE_OIDC_CLIENT_ID?: string | undefined;
  LODE_OIDC_CLIENT_SECRET?: string | undefined;
  LODE_TRUST_PROXY: TrustProxy;
  /** Where people reach the gateway (storageSettings, which both processes read): sign-in URLs are built on it. */
  LODE_PUBLIC_URL?: string | undefined;
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
    authFailureLimits: {
      perAddress: config.LODE_AUTH_FAILURES_PER_ADDRESS,
      perKey: config.LODE_AUTH_FAILURES_PER_KEY,
      windowMs: config.LODE_AUTH_FAILURE_WINDOW_MS,
    },
    bodyLimit: config.LODE_BODY_LIMIT,
    feedHeartbeatMs: config.LODE_FEED_HEARTBEAT_MS,
    oidc: oidcSettings(config),
    trustProxy: config.LODE_TRUST_PROXY,
    publicUrl: config.LODE_PUBLIC_URL,
  };
}
