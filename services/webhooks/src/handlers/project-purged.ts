import { consumeProjectPurges, type EventConsumer, type EventStream } from '@lode/bus';
import { purgeProjectRows, type Database, type ProjectTable } from '@lode/db';
import type { Logger } from '@lode/telemetry';

/** The webhook service's rows of a project, children before parents. */
const PROJECT_TABLES: readonly ProjectTable[] = [
  { table: 'deliveries', where: 'webhook_id IN (SELECT id FROM webhooks WHERE project_id = $1)' },
  { table: 'webhooks' },
  { table: 'public_events' },
  { table: 'feed_heads' },
];

/** Deletes a purged project's rows of this service, retried until done. */
export function consumeProjectPurged(events: EventStream, db: Database, logger: Logger): Promise<EventConsumer> {
  return consumeProjectPurges(events, 'webhooks', purgeProjectRows(db, PROJECT_TABLES, logger));
}
