export * from './shutdown.ts';
export * from './http-server.ts';
export * from './secrets.ts';
export { runPeriodically, type PeriodicTask } from './periodic.ts';
export * from './ops-server.ts';
export * from './service-process.ts';
export * from './unhandled-rejections.ts';
