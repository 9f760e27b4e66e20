import type { Logger } from '@lode/telemetry';
import type { Queryable } from './database.ts';

/**
 * A table holding one project's rows, as its service's purge deletes them: `where` picks them by
 * the project id ($1), `project_id = $1` unless given (a child table without the column names its
 * parent's rows). Table names and conditions are the service's own constants, never input.
 */
export interface ProjectTable {
  table: string;
  where?: string;
}

/** Rows one statement deletes: small enough that no batch holds its locks or the WAL for long. */
export const PROJECT_ROWS_PER_BATCH = 5000;

/**
 * Deletes every row of a project from each table in turn, children before parents, in batches of
 * `batch` rows, each statement its own transaction: a project of millions of rows never becomes one
 * giant transaction, and a purge interrupted anywhere resumes where it stopped when run again (what
 * is gone stays gone). Answers how many rows it deleted from each table.
 */
export async function deleteProjectRows(
  db: Queryable,
  projectId: string,
  tables: readonly ProjectTable[],
  batch = PROJECT_ROWS_PER_BATCH,
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const { table, where = 'project_id = $1' } of tables) {
    deleted[table] = 0;
    for (;;) {
      const { rowCount } = await db.query(`DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT $2))`, [
        projectId,
        batch,
      ]);
      deleted[table] += rowCount ?? 0;
      if ((rowCount ?? 0) < batch) break;
    }
  }
  return deleted;
}

/** A service's purge of a project's rows from its tables, logged with what it deleted. */
export function purgeProjectRows(db: Queryable, tables: readonly ProjectTable[], logger: Logger): (projectId: string) => Promise<void> {
  return async (projectId) => {
    const deleted = await deleteProjectRows(db, projectId, tables);
    logger.info({ projectId, deleted }, 'purged project rows deleted');
  };
}
