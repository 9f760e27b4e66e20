import { consumeProjectPurges, type EventConsumer, type EventStream } from '@lode/bus';
import { purgeProjectRows, type Database, type ProjectTable } from '@lode/db';
import type { Logger } from '@lode/telemetry';

/** The sync read model's rows of a project, children before parents. */
const PROJECT_TABLES: readonly ProjectTable[] = [
  { table: 'staged_entries' },
  { table: 'history' },
  { table: 'tree' },
  { table: 'branches' },
  { table: 'session_batches' },
  { table: 'progress' },
];

/** Deletes a purged project's rows of this service, retried until done. */
export function consumeProjectPurged(events: EventStream, db: Database, logger: Logger): Promise<EventConsumer> {
  return consumeProjectPurges(events, 'sync', purgeProjectRows(db, PROJECT_TABLES, logger));
}
