import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';

export interface BulkVersion {
  fileId: string;
  path: string;
  version: number;
  sha256: string;
  size: number;
  storageKey: string;
}

/**
 * The bytes a seeded version stands for: its path. Its recorded sha256 and size are those of these
 * bytes, so writeBulkBlobs can put honest objects behind the versions when a test needs them.
 */
export function bulkContent(version: BulkVersion): Buffer {
  return Buffer.from(version.path);
}

/**
 * Confirmed versions of `count` new files, written straight into the upload service's schema in one
 * statement per table. Only for commit-scale tests and benchmarks (25,000 files), where pushing each
 * file over HTTP would take minutes; the commit under test still goes through the gateway. The
 * storage keys point at no object until writeBulkBlobs stores them.
 */
export async function seedConfirmedVersions(
  databaseUrl: string,
  owner: { projectId: string; userId: string },
  count: number,
  prefix = `bulk-${randomUUID().slice(0, 8)}`,
): Promise<BulkVersion[]> {
  const files = Array.from({ length: count }, (_, i): BulkVersion => {
    const path = `${prefix}/file-${String(i).padStart(6, '0')}.bin`;
    const fileId = randomUUID();
    return {
      fileId,
      path,
      version: 1,
      sha256: createHash('sha256').update(path).digest('hex'),
      size: Buffer.byteLength(path),
      storageKey: `p/${owner.projectId}/bulk/${fileId}`,
    };
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
       SELECT gen_random_uuid(), $1::uuid, file_id, 1, sha256, size, storage_key, $2, 'Bulk seeder', 'upload'
       FROM unnest($3::uuid[], $4::text[], $5::bigint[], $6::text[]) AS t(file_id, sha256, size, storage_key)`,
      [owner.projectId, owner.userId, files.map((f) => f.fileId), files.map((f) => f.sha256), files.map((f) => f.size), files.map((f) => f.storageKey)],
    );
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  return files;
}
