export * from './shutdown.ts';
export * from './http-server.ts';
export * from './secrets.ts';
