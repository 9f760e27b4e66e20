export * from './stack.ts';
export * from './process-stack.ts';
export * from './bulk-versions.ts';
