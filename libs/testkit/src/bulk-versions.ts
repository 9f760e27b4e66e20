import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';

export interface BulkVersion {
  fileId: string;
  path: string;
  version: number;
  sha256: string;
  size: number;
}

/**
 * Confirmed versions of `count` new files, written straight into the upload service's schema in one
 * statement per table. Only for commit-scale tests and benchmarks (25,000 files), where pushing each
 * file over HTTP would take minutes; the commit under test still goes through the gateway. The
 * storage keys point at no object, so these versions' download URLs are not fetchable.
 */
export async function seedConfirmedVersions(
  databaseUrl: string,
  owner: { projectId: string; userId: string },
  count: number,
  prefix = `bulk-${randomUUID().slice(0, 8)}`,
): Promise<BulkVersion[]> {
  const files = Array.from({ length: count }, (_, i) => {
    const path = `${prefix}/file-${String(i).padStart(6, '0')}.bin`;
    return { fileId: randomUUID(), path, version: 1, sha256: createHash('sha256').update(path).digest('hex'), size: 1000 + i };
  });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO files.files (id, project_id, path, path_key, tip_version)
       SELECT id, $1, path, lower(path), 1 FROM unnest($2::uuid[], $3::text[]) AS t(id, path)`,
      [owner.projectId, files.map((f) => f.fileId), files.map((f) => f.path)],
    );
    await client.query(
      `INSERT INTO files.versions (id, project_id, file_id, version, sha256, size, storage_key, uploader_id, uploader_name, origin)
       SELECT gen_random_uuid(), $1::uuid, file_id, 1, sha256, size, 'p/' || $1::text || '/bulk/' || file_id, $2, 'Bulk seeder', 'upload'
       FROM unnest($3::uuid[], $4::text[], $5::bigint[]) AS t(file_id, sha256, size)`,
      [owner.projectId, owner.userId, files.map((f) => f.fileId), files.map((f) => f.sha256), files.map((f) => f.size)],
    );
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  return files;
}
