import { projectDeletion } from '@lode/contracts';
import type { EventConsumer, EventStream } from '@lode/bus';
import { deleteProjectRows, type Database, type ProjectTable } from '@lode/db';
import type { Logger } from '@lode/telemetry';

/** The webhook service's rows of a project, children before parents. */
export const PROJECT_TABLES: readonly ProjectTable[] = [
  { table: 'deliveries', where: 'webhook_id IN (SELECT id FROM webhooks WHERE project_id = $1)' },
  { table: 'webhooks' },
  { table: 'public_events' },
  { table: 'feed_heads' },
];

/**
 * Durable, shared by every replica: a purged project's rows are deleted here in batches, retried
 * until done. Deleting what is already gone changes nothing, so a redelivery or two replicas on
 * one project are harmless.
 */
export const PROJECT_PURGER = 'webhooks-project-purger';

export function consumeProjectPurged(events: EventStream, db: Database, logger: Logger): Promise<EventConsumer> {
  return events.consume(
    PROJECT_PURGER,
    projectDeletion.projectPurged,
    async ({ projectId }) => {
      const deleted = await deleteProjectRows(db, projectId, PROJECT_TABLES);
      logger.info({ projectId, deleted }, 'purged project rows deleted');
    },
    { orderedBy: (event) => event.projectId },
  );
}
