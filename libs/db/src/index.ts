export { Database, type DatabaseOptions, type Queryable } from './database.ts';
export { migrate, type LibraryMigrations, type MigrationResult, type Migrations, type SchemaMigrations } from './migrate.ts';
export { mapPgError, isUniqueViolation } from './pg-errors.ts';
export { databaseSettings, databaseTimeouts, DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './timeouts.ts';
export { CursorCodec, cursorSecretSetting } from './cursor.ts';
export { replayIdempotent, tryClaimIdempotencyKey, whileIdempotencyKeyClaimed, type IdempotencyScope } from './idempotency.ts';
export { LINE_SEPARATOR, textList, UNIT_SEPARATOR } from './text-list.ts';
export { preferIndexScans } from './index-scans.ts';
export { BEFORE_FIRST_ID, inKeySlices, ROWS_PER_SLICE, type Slice } from './key-slices.ts';
