export { migrateAll } from './migrate-all.ts';
export { SERVICE_SCHEMAS } from './schemas.ts';
