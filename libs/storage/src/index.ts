export * from './storage.ts';
export { LocalBlobStorage, LOCAL_OBJECTS_ROUTE, type LocalStorageOptions } from './local-storage.ts';
export { createLocalObjectHandler } from './local-http.ts';
export * from './config.ts';
