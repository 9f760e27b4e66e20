import { projectDeletion } from '@lode/contracts';
import type { EventConsumer, EventStream } from '@lode/bus';
import { deleteProjectRows, type Database, type ProjectTable } from '@lode/db';
import type { Logger } from '@lode/telemetry';

/**
 * The commit service's rows of a project, children before parents. Entries are found through their
 * commits: their indexes that lead with the project are partial.
 */
export const PROJECT_TABLES: readonly ProjectTable[] = [
  { table: 'draft_entries', where: 'draft_id IN (SELECT id FROM drafts WHERE project_id = $1)' },
  { table: 'drafts' },
  { table: 'commit_entries', where: 'commit_id IN (SELECT id FROM commits WHERE project_id = $1)' },
  { table: 'commits' },
  // The tree before its folder counts: deleting tree rows updates the counts of their folders.
  { table: 'tree' },
  { table: 'tree_folders' },
  { table: 'file_paths' },
  { table: 'file_paths_unkeyed' },
  { table: 'branches' },
  { table: 'idempotency_keys' },
  { table: 'project_sequences' },
];

/**
 * Durable, shared by every replica: a purged project's rows are deleted here in batches, retried
 * until done. Deleting what is already gone changes nothing, so a redelivery or two replicas on
 * one project are harmless.
 */
export const PROJECT_PURGER = 'commit-project-purger';

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
