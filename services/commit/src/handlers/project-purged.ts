import { consumeProjectPurges, type EventConsumer, type EventStream } from '@lode/bus';
import { purgeProjectRows, type Database, type ProjectTable } from '@lode/db';
import type { Logger } from '@lode/telemetry';

/**
 * The commit service's rows of a project, children before parents. Entries are found through their
 * commits: their indexes that lead with the project are partial.
 */
const PROJECT_TABLES: readonly ProjectTable[] = [
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

/** Deletes a purged project's rows of this service, retried until done. */
export function consumeProjectPurged(events: EventStream, db: Database, logger: Logger): Promise<EventConsumer> {
  return consumeProjectPurges(events, 'commit', purgeProjectRows(db, PROJECT_TABLES, logger));
}
