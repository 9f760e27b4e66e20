import { isoTime, preparedForList, textList, type NamedStatement, type Queryable } from '@lode/db';
import type { upload } from '@lode/contracts';

export interface ReservationInput {
  path: string;
  pathKey: string;
  sha256: string;
  size: number;
  contentMd5: string;
  uploadId: string;
  /** Key the bytes would be uploaded to; replaced by the blob's key when the content dedups. */
  storageKey: string;
  expiresAt: string;
}

export interface ReservationRow {
  path_key: string;
  file_id: string;
  existing_path: string;
  version: number;
  dedup: boolean;
  reserved: boolean;
}

/** An expired reservation as the collector takes it: with its store upload id when it went up in parts. */
export interface ExpiredUpload {
  id: string;
  storage_key: string;
  dedup: boolean;
  multipart_upload_id: string | null;
}

export interface UploadRow {
  id: string;
  file_id: string;
  version: number;
  storage_key: string;
  sha256: string;
  size: number;
  dedup: boolean;
}

/**
 * What a confirm entry names: a reservation still waiting, or (`confirmed`) the version that an
 * earlier confirm of it recorded, whose upload_id is the reservation's id.
 */
export interface NamedUpload extends UploadRow {
  confirmed: boolean;
  /** A reservation uploaded in parts (it promised no MD5 of the whole file): confirm completes it first. */
  multipart: boolean;
}

/** What a confirmed version records about its content and who uploaded it: the contract's fields. */
type VersionFields = Omit<upload.ResolvedVersion, 'id' | 'createdAt'>;

/** A confirmed version as resolve reads it; its position says which file and number it is. */
type ResolvedVersionRow = Omit<upload.ResolvedVersion, 'fileId' | 'version'> & { n: number };

/** Confirmed versions as columns: entry i describes the i-th version asked, null when not confirmed. */
export interface ResolvedVersions {
  ids: (string | null)[];
  sha256s: (string | null)[];
  sizes: (number | null)[];
  storageKeys: (string | null)[];
  uploaderIds: (string | null)[];
  uploaderNames: (string | null)[];
  /** ISO 8601, UTC, milliseconds. */
  createdAts: (string | null)[];
}

export interface ResolvedFiles {
  paths: (string | null)[];
  versions: ResolvedVersions;
}

/** A confirmed upload's version, in the project the recording statement is given. */
export interface NewVersion extends VersionFields {
  uploadId: string;
  origin: 'upload' | 'dedup';
}

/** What a confirm names its reservation by: the storage key of an upload, or null and the content of a dedup. */
export interface ReservationLookup {
  storageKey: string | null;
  fileId: string;
  version: number;
  sha256: string;
  size: number;
}

export interface NewRestoreVersions {
  projectId: string;
  restoreId: string;
  /** Who restored: the new versions' uploader. */
  uploaderId: string;
  uploaderName: string;
  targets: readonly { fileId: string; toVersion: number }[];
}

// One index probe per id (LATERAL … LIMIT 1): statistics gone stale after a large push cannot turn
// the lookup into a scan of the whole project, whatever its size; and a plan kept for a short list
// (preparedForList) probes as a custom one does.
const RESOLVE_PATHS: NamedStatement = {
  name: 'upload.resolve_paths',
  text: `SELECT r.n::int AS n, f.path
         FROM unnest(string_to_array($2, ',')::uuid[]) WITH ORDINALITY AS r(file_id, n)
         CROSS JOIN LATERAL (SELECT path FROM files WHERE id = r.file_id AND project_id = $1 LIMIT 1) f`,
};

// created_at as Date.toISOString() would print it (milliseconds, UTC), without a Date per row.
const RESOLVE_VERSIONS: NamedStatement = {
  name: 'upload.resolve_versions',
  text: `SELECT r.n::int AS n, v.*
         FROM unnest(string_to_array($2, ',')::uuid[], string_to_array($3, ',', '')::int[]) WITH ORDINALITY AS r(file_id, version, n)
         CROSS JOIN LATERAL (
           SELECT id, sha256, size, storage_key AS "storageKey", uploader_id AS "uploaderId", uploader_name AS "uploaderName",
                  ${isoTime('created_at')} AS "createdAt"
           FROM versions WHERE file_id = r.file_id AND version = r.version AND project_id = $1 AND purged_at IS NULL LIMIT 1
         ) v`,
};

/**
 * SQL for the `files` schema: files, upload reservations, versions and the content index. Methods
 * that must share a transaction with another say so; the domain opens it.
 */
export class FilesRepository {
  /**
   * Reserves the next version of every file in one statement. Existing files are read, not written:
   * a no-op update that returned them rewrote every row (and its two index entries) of a push of
   * modified files, 30 % of the statement's time and 44 % of its WAL at 1,000 files. New paths are
   * inserted; one a concurrent batch inserted meanwhile comes back through the no-op update, which
   * sees it committed. A tip read a moment stale only makes a confirm answer version_conflict, as
   * two pushes of one file do. A path that collides with another case of an existing path gets no
   * reservation.
   */
  async reserveBatch(q: Queryable, projectId: string, uploaderId: string, entries: readonly ReservationInput[]): Promise<ReservationRow[]> {
    const { rows } = await q.query<ReservationRow>(
      `WITH input AS (
         SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::uuid[], $8::text[], $9::timestamptz[])
           AS t(path, path_key, sha256, size, content_md5, upload_id, storage_key, expires_at)
       ),
       known AS (
         SELECT id, path, path_key, tip_version FROM files WHERE project_id = $1 AND path_key = ANY($3::text[])
       ),
       made AS (
         INSERT INTO files (id, project_id, path, path_key)
         SELECT gen_random_uuid(), $1, path, path_key FROM input WHERE path_key NOT IN (SELECT path_key FROM known)
         ON CONFLICT (project_id, path_key) DO UPDATE SET tip_version = files.tip_version
         RETURNING id, path, path_key, tip_version
       ),
       f AS (SELECT * FROM known UNION ALL SELECT * FROM made),
       matched AS (
         SELECT i.*, f.id AS file_id, f.path AS existing_path, f.tip_version + 1 AS version, b.storage_key AS blob_key
         FROM input i
         JOIN f ON f.path_key = i.path_key
         -- Content whose object is marked for collection does not dedup: the upload brings its bytes again.
         LEFT JOIN blobs b ON b.project_id = $1 AND b.sha256 = i.sha256 AND b.size = i.size
           AND NOT EXISTS (SELECT 1 FROM collectable_objects c WHERE c.storage_key = b.storage_key)
       ),
       reserved AS (
         INSERT INTO uploads (id, project_id, file_id, version, storage_key, sha256, size, content_md5, dedup, uploader_id, expires_at)
         SELECT upload_id, $1, file_id, version, coalesce(blob_key, storage_key), sha256, size, content_md5,
                blob_key IS NOT NULL, $10, expires_at
         FROM matched WHERE existing_path = path
         RETURNING id
       )
       SELECT path_key, file_id, existing_path, version, blob_key IS NOT NULL AS dedup, existing_path = path AS reserved
       FROM matched`,
      [
        projectId,
        entries.map((e) => e.path),
        entries.map((e) => e.pathKey),
        entries.map((e) => e.sha256),
        entries.map((e) => e.size),
        entries.map((e) => e.contentMd5),
        entries.map((e) => e.uploadId),
        entries.map((e) => e.storageKey),
        entries.map((e) => e.expiresAt),
        uploaderId,
      ],
    );
    return rows;
  }

  /**
   * The files of these paths (path keys distinct), inserted where none exists; an existing one comes
   * back through the no-op update, which also returns a row a concurrent statement inserted.
   */
  async ensureFiles(
    q: Queryable,
    projectId: string,
    paths: readonly { path: string; pathKey: string }[],
  ): Promise<{ id: string; path: string; path_key: string }[]> {
    const { rows } = await q.query<{ id: string; path: string; path_key: string }>(
      `INSERT INTO files (id, project_id, path, path_key)
       SELECT gen_random_uuid(), $1, path, path_key FROM unnest($2::text[], $3::text[]) AS t(path, path_key)
       ON CONFLICT (project_id, path_key) DO UPDATE SET tip_version = files.tip_version
       RETURNING id, path, path_key`,
      [projectId, paths.map((p) => p.path), paths.map((p) => p.pathKey)],
    );
    return rows;
  }

  /**
   * What each confirm entry names, in one statement, aligned with `entries` (undefined where nothing
   * in the project matches): first the version an earlier confirm of it recorded (the entry's file
   * and number, with its storage key for an upload or its content for a dedup), else the reservation
   * (by storage key for an upload; by file, number and content for a dedup). A few index probes per
   * entry (LATERAL … LIMIT 1), whatever the project's size.
   */
  async findReservations(q: Queryable, projectId: string, entries: readonly ReservationLookup[]): Promise<(NamedUpload | undefined)[]> {
    const { rows } = await q.query<NamedUpload & { n: number }>(
      `SELECT r.n::int AS n, u.*
       FROM unnest($2::text[], $3::uuid[], $4::int[], $5::text[], $6::bigint[]) WITH ORDINALITY AS r(storage_key, file_id, version, sha256, size, n)
       CROSS JOIN LATERAL (
         (SELECT upload_id AS id, file_id, version, storage_key, sha256, size, origin = 'dedup' AS dedup, true AS confirmed, false AS multipart FROM versions
          WHERE project_id = $1 AND file_id = r.file_id AND version = r.version AND upload_id IS NOT NULL
            AND CASE WHEN r.storage_key IS NULL THEN origin = 'dedup' AND sha256 = r.sha256 AND size = r.size
                     ELSE origin = 'upload' AND storage_key = r.storage_key END)
         UNION ALL
         (SELECT id, file_id, version, storage_key, sha256, size, dedup, false, content_md5 = '' FROM uploads
          WHERE r.storage_key IS NOT NULL AND project_id = $1 AND storage_key = r.storage_key AND NOT dedup)
         UNION ALL
         (SELECT id, file_id, version, storage_key, sha256, size, dedup, false, false FROM uploads
          WHERE r.storage_key IS NULL AND project_id = $1 AND file_id = r.file_id AND version = r.version AND dedup
            AND sha256 = r.sha256 AND size = r.size
          LIMIT 1)
         LIMIT 1
       ) u`,
      [
        projectId,
        entries.map((e) => e.storageKey),
        entries.map((e) => e.fileId),
        entries.map((e) => e.version),
        entries.map((e) => e.sha256),
        entries.map((e) => e.size),
      ],
    );
    const found = new Array<NamedUpload | undefined>(entries.length);
    for (const { n, ...row } of rows) found[n - 1] = row;
    return found;
  }

  /**
   * Locks the reservations in id order until the transaction ends (the collector skips locked rows,
   * and batches sharing rows queue instead of deadlocking); answers the ids of those still there.
   */
  async lockReservations(tx: Queryable, uploadIds: readonly string[]): Promise<Set<string>> {
    const { rows } = await tx.query<{ id: string }>('SELECT id FROM uploads WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [uploadIds]);
    return new Set(rows.map((row) => row.id));
  }

  /** The content store's objects of these contents, by `sha256:size`; content it does not hold is absent. */
  async blobKeys(q: Queryable, projectId: string, contents: readonly { sha256: string; size: number }[]): Promise<Map<string, string>> {
    const { rows } = await q.query<{ sha256: string; size: number; storage_key: string }>(
      `SELECT b.sha256, b.size, b.storage_key FROM blobs b
       JOIN unnest($2::text[], $3::bigint[]) AS c(sha256, size) ON b.project_id = $1 AND b.sha256 = c.sha256 AND b.size = c.size`,
      [projectId, contents.map((c) => c.sha256), contents.map((c) => c.size)],
    );
    return new Map(rows.map((row) => [`${row.sha256}:${row.size}`, row.storage_key]));
  }

  /**
   * The content store's objects of these contents, locked FOR SHARE until the transaction ends: a
   * dedup confirm records its version on the object the content has now, and the collector (which
   * locks the row FOR UPDATE, skipping it while held) cannot remove it meanwhile. Content missing
   * from the answer was collected: its dedup cannot be confirmed. Keys are `sha256:size`.
   */
  async shareBlobs(tx: Queryable, projectId: string, contents: readonly { sha256: string; size: number }[]): Promise<Map<string, string>> {
    const { rows } = await tx.query<{ sha256: string; size: number; storage_key: string }>(
      `SELECT b.sha256, b.size, b.storage_key FROM blobs b
       JOIN unnest($2::text[], $3::bigint[]) AS c(sha256, size) ON b.project_id = $1 AND b.sha256 = c.sha256 AND b.size = c.size
       ORDER BY b.sha256, b.size FOR SHARE OF b`,
      [projectId, contents.map((c) => c.sha256), contents.map((c) => c.size)],
    );
    return new Map(rows.map((row) => [`${row.sha256}:${row.size}`, row.storage_key]));
  }

  /** Which of these reservations a version was recorded for: the ids of the confirmed ones. */
  async confirmedUploads(q: Queryable, projectId: string, uploads: readonly { id: string; fileId: string; version: number }[]): Promise<Set<string>> {
    const { rows } = await q.query<{ upload_id: string }>(
      `SELECT v.upload_id FROM unnest($2::uuid[], $3::int[], $4::uuid[]) AS r(file_id, version, upload_id)
       JOIN versions v ON v.project_id = $1 AND v.file_id = r.file_id AND v.version = r.version AND v.upload_id = r.upload_id`,
      [projectId, uploads.map((u) => u.fileId), uploads.map((u) => u.version), uploads.map((u) => u.id)],
    );
    return new Set(rows.map((row) => row.upload_id));
  }

  /**
   * Records many versions in one statement (at most one per file): each file's tip advances from
   * version-1 to version, its version row is inserted, its reservation deleted, its content
   * indexed for dedup and the project's usage delta appended; answers the upload ids that were recorded. A file whose tip moved meanwhile
   * (another upload took the number) records nothing. Run after lockReservations and lockFiles, in
   * their transaction: racing confirms of one file serialize on its row lock.
   */
  async recordVersions(tx: Queryable, projectId: string, versions: readonly NewVersion[]): Promise<Set<string>> {
    const { rows } = await tx.query<{ upload_id: string }>(
      `WITH input AS (
         SELECT * FROM unnest($2::uuid[], $3::int[], $4::text[], $5::bigint[], $6::text[], $7::uuid[], $8::text[], $9::uuid[], $10::text[])
           AS t(file_id, version, sha256, size, storage_key, uploader_id, uploader_name, upload_id, origin)
       ),
       tip AS (
         UPDATE files f SET tip_version = i.version FROM input i
         -- id = ANY: one index probe per file, where a join alone may read every file of a small project.
         WHERE f.id = i.file_id AND f.id = ANY($2::uuid[]) AND f.project_id = $1 AND f.tip_version = i.version - 1
         RETURNING f.id
       ),
       recorded AS (SELECT i.* FROM input i JOIN tip ON tip.id = i.file_id),
       version_rows AS (
         INSERT INTO versions (id, project_id, file_id, version, sha256, size, storage_key, uploader_id, uploader_name, upload_id, origin)
         SELECT gen_random_uuid(), $1, file_id, version, sha256, size, storage_key, uploader_id, uploader_name, upload_id, origin FROM recorded
       ),
       reservations AS (
         DELETE FROM uploads WHERE id IN (SELECT upload_id FROM recorded)
       ),
       -- An upload's object becomes the content's dedup target, unless the content has one already,
       -- but one marked for collection (its versions obliterated) gives way to this upload's.
       blob_rows AS (
         INSERT INTO blobs AS b (project_id, sha256, size, storage_key)
         SELECT DISTINCT ON (sha256, size) $1, sha256, size, storage_key FROM recorded WHERE origin = 'upload'
         ON CONFLICT (project_id, sha256, size) DO UPDATE SET storage_key = excluded.storage_key
           WHERE EXISTS (SELECT 1 FROM collectable_objects c WHERE c.storage_key = b.storage_key)
       ),
       -- Every upload brought an object of its own (its key is its reservation's); a deduplicated
       -- version shares its blob's.
       usage AS (
         INSERT INTO usage_deltas (project_id, logical_bytes, stored_bytes, versions, objects)
         SELECT $1, sum(size), coalesce(sum(size) FILTER (WHERE origin = 'upload'), 0), count(*), count(*) FILTER (WHERE origin = 'upload')
         FROM recorded HAVING count(*) > 0
       )
       SELECT upload_id FROM recorded`,
      [
        projectId,
        versions.map((v) => v.fileId),
        versions.map((v) => v.version),
        versions.map((v) => v.sha256),
        versions.map((v) => v.size),
        versions.map((v) => v.storageKey),
        versions.map((v) => v.uploaderId),
        versions.map((v) => v.uploaderName),
        versions.map((v) => v.uploadId),
        versions.map((v) => v.origin),
      ],
    );
    return new Set(rows.map((row) => row.upload_id));
  }

  /**
   * Paths and confirmed versions for many files at once, aligned with `fileIds` (and `versions`):
   * entry i is null when fileIds[i] is not in the project, or that version is not confirmed, or was
   * purged (or none was asked): nothing commits, restores or merges a purged version. Re-scoped to the project, so another project's file matches nothing. Two set-based
   * queries, run at once (on the pool's connections; on one connection they would queue), whatever
   * the number of files; rows carry their request position, not ids.
   */
  async resolve(q: Queryable, projectId: string, fileIds: readonly string[], versions?: readonly (number | null)[]): Promise<ResolvedFiles> {
    const ids = textList(fileIds);
    const files = q.query<{ n: number; path: string }>(preparedForList(RESOLVE_PATHS, fileIds.length), [projectId, ids]);
    const found = versions?.some((v) => v !== null)
      ? q.query<ResolvedVersionRow>(preparedForList(RESOLVE_VERSIONS, fileIds.length), [projectId, ids, textList(versions)])
      : undefined;
    // Awaited together: awaiting one first would leave the other's failure (a version beyond int4,
    // say) unhandled until then, and an unhandled rejection ends a Node process.
    const [fileRows, versionRows] = await Promise.all([files, found]);
    const paths = new Array<string | null>(fileIds.length).fill(null);
    for (const row of fileRows.rows) paths[row.n - 1] = row.path;
    const count = versions?.length ?? 0;
    const column = <T>() => new Array<T | null>(count).fill(null);
    const resolved: ResolvedVersions = {
      ids: column(),
      sha256s: column(),
      sizes: column(),
      storageKeys: column(),
      uploaderIds: column(),
      uploaderNames: column(),
      createdAts: column(),
    };
    for (const row of versionRows?.rows ?? []) {
      const i = row.n - 1;
      resolved.ids[i] = row.id;
      resolved.sha256s[i] = row.sha256;
      resolved.sizes[i] = row.size;
      resolved.storageKeys[i] = row.storageKey;
      resolved.uploaderIds[i] = row.uploaderId;
      resolved.uploaderNames[i] = row.uploaderName;
      resolved.createdAts[i] = row.createdAt;
    }
    return { paths, versions: resolved };
  }

  /** Versions this restore already made: a retried restore answers with them instead of making more. */
  async restoreVersions(q: Queryable, projectId: string, restoreId: string): Promise<{ fileId: string; version: number }[]> {
    const { rows } = await q.query<{ fileId: string; version: number }>(
      'SELECT file_id AS "fileId", version FROM versions WHERE project_id = $1 AND restore_id = $2',
      [projectId, restoreId],
    );
    return rows;
  }

  /**
   * Locks the files' rows in id order until the transaction ends: restores sharing files queue
   * instead of deadlocking, and a confirm racing for the same number then finds the tip moved and
   * answers version_conflict, as it would against another upload.
   */
  async lockFiles(tx: Queryable, projectId: string, fileIds: readonly string[]): Promise<void> {
    await tx.query('SELECT 1 FROM files WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE', [projectId, fileIds]);
  }

  /**
   * One new version per target, at the file's tip + 1, with the target version's content and object
   * (nothing is copied). A target whose file or version is not in the project, or was purged
   * meanwhile, gets nothing and moves no tip. Run after lockFiles, in its transaction (an
   * obliteration of the file waits for it, or it for the obliteration).
   */
  async insertRestoreVersions(tx: Queryable, r: NewRestoreVersions): Promise<{ fileId: string; version: number }[]> {
    const { rows } = await tx.query<{ fileId: string; version: number }>(
      `WITH source AS (
         -- One index probe per target (LATERAL … LIMIT 1): statistics gone stale after a large push
         -- cannot turn the lookup into a scan of the project's versions for every target.
         SELECT v.file_id, v.sha256, v.size, v.storage_key
         FROM unnest($2::uuid[], $3::int[]) AS t(file_id, to_version)
         CROSS JOIN LATERAL (
           SELECT file_id, sha256, size, storage_key FROM versions
           WHERE file_id = t.file_id AND version = t.to_version AND project_id = $1 AND purged_at IS NULL LIMIT 1
         ) v
       ),
       bumped AS (
         UPDATE files f SET tip_version = f.tip_version + 1 FROM source s
         WHERE f.id = s.file_id AND f.project_id = $1
         RETURNING f.id AS file_id, f.tip_version AS version
       ),
       made AS (
         INSERT INTO versions (id, project_id, file_id, version, sha256, size, storage_key, uploader_id, uploader_name, origin, restore_id)
         SELECT gen_random_uuid(), $1, b.file_id, b.version, s.sha256, s.size, s.storage_key, $4, $5, 'restore', $6
         FROM bumped b JOIN source s ON s.file_id = b.file_id
         RETURNING file_id, version, size
       ),
       -- A restored version shares its source's object: it weighs in logical bytes only.
       usage AS (
         INSERT INTO usage_deltas (project_id, logical_bytes, stored_bytes, versions, objects)
         SELECT $1, sum(size), 0, count(*), 0 FROM made HAVING count(*) > 0
       )
       SELECT file_id AS "fileId", version FROM made`,
      [r.projectId, r.targets.map((t) => t.fileId), r.targets.map((t) => t.toVersion), r.uploaderId, r.uploaderName, r.restoreId],
    );
    return rows;
  }

  /**
   * Up to `limit` reservations that expired before `before` and were never confirmed, their rows
   * locked until the transaction ends. SKIP LOCKED lets several replicas collect at once without
   * taking the same rows and without waiting on a confirm that holds one.
   */
  async lockExpiredReservations(tx: Queryable, before: Date, limit: number): Promise<ExpiredUpload[]> {
    const { rows } = await tx.query<ExpiredUpload>(
      `SELECT u.id, u.storage_key, u.dedup, m.upload_id AS multipart_upload_id
       FROM uploads u LEFT JOIN multipart_uploads m ON m.reservation_id = u.id
       WHERE u.expires_at < $1
       ORDER BY u.expires_at LIMIT $2 FOR UPDATE OF u SKIP LOCKED`,
      [before, limit],
    );
    return rows;
  }

  async deleteReservations(tx: Queryable, ids: readonly string[]): Promise<void> {
    await tx.query('DELETE FROM uploads WHERE id = ANY($1::uuid[])', [ids]);
  }
}
