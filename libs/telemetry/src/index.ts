export * from './logger.ts';
export * from './tracing.ts';
export { tracingEnabled } from './settings.ts';
