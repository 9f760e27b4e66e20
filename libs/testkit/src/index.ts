export * from './database.ts';
export * from './client.ts';
export * from './seed.ts';
export * from './stack.ts';
export * from './upload.ts';
export * from './processes.ts';
export * from './s3.ts';
export * from './process-stack.ts';
