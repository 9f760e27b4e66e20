import { deleteProjectRows, type ProjectTable, type Queryable } from '@lode/db';

/**
 * The upload service's rows of a project, children before parents (versions and parts name their
 * upload). Versions are found through their files: no index of theirs leads with the project.
 */
const PROJECT_TABLES: readonly ProjectTable[] = [
  { table: 'versions', where: 'file_id IN (SELECT id FROM files WHERE project_id = $1)' },
  { table: 'multipart_uploads', where: 'reservation_id IN (SELECT id FROM uploads WHERE project_id = $1)' },
  { table: 'uploads' },
  { table: 'lfs_uploads' },
  { table: 'blobs' },
  { table: 'files' },
  { table: 'collectable_objects' },
  { table: 'usage_deltas' },
  { table: 'project_usage' },
  { table: 'usage_history' },
  { table: 'project_quotas' },
  { table: 'retention_policies' },
];

/** SQL of a purged project's removal: the uploads the store still holds open, then every row. */
export class ProjectPurgeRepository {
  /** The project's multipart uploads the store may still hold open: its key and the store's upload id. */
  async openMultiparts(db: Queryable, projectId: string): Promise<{ key: string; uploadId: string }[]> {
    const { rows } = await db.query<{ key: string; uploadId: string }>(
      `SELECT u.storage_key AS key, m.upload_id AS "uploadId" FROM multipart_uploads m JOIN uploads u ON u.id = m.reservation_id WHERE u.project_id = $1`,
      [projectId],
    );
    return rows;
  }

  deleteRows(db: Queryable, projectId: string): Promise<Record<string, number>> {
    return deleteProjectRows(db, projectId, PROJECT_TABLES);
  }
}
