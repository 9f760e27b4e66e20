export * from './logger.ts';
export * from './tracing.ts';
export * from './metrics.ts';
export * from './request-context.ts';
export { tracingEnabled } from './settings.ts';
