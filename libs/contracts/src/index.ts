export * from './contract.ts';
export * from './common.ts';
export * from './health.ts';
export * as upload from './upload.ts';
export * from './event.ts';
export * as commit from './commit.ts';
export * from './paths.ts';
export * as lock from './lock.ts';
