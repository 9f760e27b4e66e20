import { pathKey } from '@lode/contracts';
import type { Queryable } from '@lode/db';

export interface SeededVersion {
  fileId: string;
  /** NFC, as a client would have sent it. */
  path: string;
  sha256: string;
  size: number;
  storageKey: string;
}

/**
 * Confirmed first versions of new files, as a push of each would leave them, in one statement: only
 * for commit-scale tests and benchmarks (25,000 files), where pushing each file through initiate,
 * PUT and confirm would take minutes. Served on no bus: test support calls it with a pool of this
 * schema, so that no SQL outside this service writes its tables. No blob row is made, so a seeded
 * version never serves as dedup content.
 */
export async function seedConfirmedVersions(db: Queryable, owner: { projectId: string; userId: string }, files: readonly SeededVersion[]): Promise<void> {
  await db.query(
    `WITH input AS (
       SELECT * FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[])
         AS t(file_id, path, path_key, sha256, size, storage_key)
     ), made AS (
       INSERT INTO files (id, project_id, path, path_key, tip_version)
       SELECT file_id, $1, path, path_key, 1 FROM input RETURNING id
     ), seeded AS (
       INSERT INTO versions (id, project_id, file_id, version, sha256, size, storage_key, uploader_id, uploader_name, origin)
       SELECT gen_random_uuid(), $1, made.id, 1, input.sha256, input.size, input.storage_key, $2, 'Bulk seeder', 'upload'
       FROM made JOIN input ON input.file_id = made.id
       RETURNING size, storage_key
     )
     -- Counted as uploads count: each distinct key is an object of the project.
     INSERT INTO usage_deltas (project_id, logical_bytes, stored_bytes, versions, objects)
     SELECT $1, sum(size), (SELECT coalesce(sum(size), 0) FROM (SELECT DISTINCT storage_key, size FROM seeded) AS k),
            count(*), (SELECT count(DISTINCT storage_key) FROM seeded)
     FROM seeded HAVING count(*) > 0`,
    [
      owner.projectId,
      owner.userId,
      files.map((f) => f.fileId),
      files.map((f) => f.path),
      files.map((f) => pathKey(f.path)),
      files.map((f) => f.sha256),
      files.map((f) => f.size),
      files.map((f) => f.storageKey),
    ],
  );
}
