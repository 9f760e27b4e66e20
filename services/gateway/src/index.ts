export { createGatewayApp, type GatewayDeps, type Gateway } from './app.ts';
export { gatewaySettings, gatewayTuning } from './config.ts';
export type { AuthFailureLimits } from './auth/failure-throttle.ts';
export { MemoryWriteLimiter } from './ratelimit/memory-limiter.ts';
export { RedisWriteLimiter } from './ratelimit/redis-limiter.ts';
export { PROJECT_SERVICES } from './wiring.ts';
