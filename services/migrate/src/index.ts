export { migrateAll } from './migrate-all.ts';
