export * from './storage.ts';
export { LocalBlobStorage, LOCAL_OBJECTS_ROUTE, type LocalStorageOptions } from './local-storage.ts';
export { sealedHeader } from './local-heads.ts';
export { createLocalObjectHandler } from './local-http.ts';
export * from './config.ts';
export { S3BlobStorage, type S3StorageOptions } from './s3-storage.ts';
export { QueryPresigner } from './sigv4.ts';
export { instrumentStorage } from './instrumented-storage.ts';
export { mapConcurrently } from './concurrency.ts';
