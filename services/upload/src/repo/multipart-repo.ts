import type { Queryable } from '@lode/db';

/** What a multipart reservation promised: the store's upload id, the part size and each part's MD5 (base64). */
export interface MultipartTerms {
  uploadId: string;
  partSize: number;
  partMd5s: string[];
}

export interface NewMultipart extends MultipartTerms {
  reservationId: string;
}

/** An open multipart reservation with what a client resuming it needs. */
export interface OpenMultipart extends MultipartTerms {
  reservationId: string;
  fileId: string;
  path: string;
  version: number;
  storageKey: string;
  size: number;
  sha256: string;
  expiresAt: Date;
}

/** What a re-initiate must match to resume an open reservation instead of making another. */
export interface MultipartLookup {
  pathKey: string;
  sha256: string;
  size: number;
  partSize: number;
}

const OPEN_COLUMNS = `u.id AS "reservationId", u.file_id AS "fileId", f.path, u.version, u.storage_key AS "storageKey",
  u.size, u.sha256, u.expires_at AS "expiresAt",
  m.upload_id AS "uploadId", m.part_size AS "partSize", m.part_md5s AS "partMd5s"`;

/** SQL for the parts promised to multipart reservations (`multipart_uploads`, one row per reservation). */
export class MultipartRepository {
  async insert(q: Queryable, rows: readonly NewMultipart[]): Promise<void> {
    if (rows.length === 0) return;
    await q.query(
      `INSERT INTO multipart_uploads (reservation_id, upload_id, part_size, part_md5s)
       SELECT reservation_id, upload_id, part_size, part_md5s
       FROM jsonb_to_recordset($1::jsonb) AS t(reservation_id uuid, upload_id text, part_size bigint, part_md5s text[])`,
      [JSON.stringify(rows.map((r) => ({ reservation_id: r.reservationId, upload_id: r.uploadId, part_size: r.partSize, part_md5s: r.partMd5s })))],
    );
  }

  /**
   * The uploader's open multipart reservations of these contents, one per entry at most (the latest):
   * still the file's next version and not expired.
   */
  async findOpen(q: Queryable, projectId: string, uploaderId: string, lookups: readonly MultipartLookup[]): Promise<(OpenMultipart & { pathKey: string })[]> {
    const { rows } = await q.query<OpenMultipart & { pathKey: string }>(
      `SELECT DISTINCT ON (l.path_key) l.path_key AS "pathKey", ${OPEN_COLUMNS}
       FROM unnest($3::text[], $4::text[], $5::bigint[], $6::bigint[]) AS l(path_key, sha256, size, part_size)
       JOIN files f ON f.project_id = $1 AND f.path_key = l.path_key
       JOIN uploads u ON u.file_id = f.id AND u.version = f.tip_version + 1 AND u.sha256 = l.sha256 AND u.size = l.size
         AND NOT u.dedup AND u.uploader_id = $2 AND u.expires_at > now()
       JOIN multipart_uploads m ON m.reservation_id = u.id AND m.part_size = l.part_size
       ORDER BY l.path_key, u.created_at DESC`,
      [projectId, uploaderId, lookups.map((l) => l.pathKey), lookups.map((l) => l.sha256), lookups.map((l) => l.size), lookups.map((l) => l.partSize)],
    );
    return rows;
  }

  /** The uploader's open multipart reservation of this file's version, if any (the latest). */
  async findOpenOf(q: Queryable, projectId: string, uploaderId: string, fileId: string, version: number): Promise<OpenMultipart | undefined> {
    const { rows } = await q.query<OpenMultipart>(
      `SELECT ${OPEN_COLUMNS}
       FROM uploads u
       JOIN files f ON f.id = u.file_id AND f.project_id = $1
       JOIN multipart_uploads m ON m.reservation_id = u.id
       WHERE u.project_id = $1 AND u.file_id = $3 AND u.version = $4 AND u.uploader_id = $2 AND u.expires_at > now()
       ORDER BY u.created_at DESC LIMIT 1`,
      [projectId, uploaderId, fileId, version],
    );
    return rows[0];
  }

  /** Keeps resumed reservations open until at least their `expiresAt`. */
  async extend(q: Queryable, reservations: readonly { reservationId: string; expiresAt: Date }[]): Promise<void> {
    if (reservations.length === 0) return;
    await q.query(
      `UPDATE uploads u SET expires_at = greatest(u.expires_at, t.expires_at)
       FROM unnest($1::uuid[], $2::timestamptz[]) AS t(id, expires_at) WHERE u.id = t.id`,
      [reservations.map((r) => r.reservationId), reservations.map((r) => r.expiresAt)],
    );
  }

  /** The terms of those reservations that are multipart, by reservation id. */
  async termsOf(q: Queryable, reservationIds: readonly string[]): Promise<Map<string, MultipartTerms>> {
    if (reservationIds.length === 0) return new Map();
    const { rows } = await q.query<MultipartTerms & { reservationId: string }>(
      `SELECT reservation_id AS "reservationId", upload_id AS "uploadId", part_size AS "partSize", part_md5s AS "partMd5s"
       FROM multipart_uploads WHERE reservation_id = ANY($1::uuid[])`,
      [reservationIds],
    );
    return new Map(rows.map(({ reservationId, ...terms }) => [reservationId, terms]));
  }

  /** Which of these store upload ids a reservation knows. */
  async known(q: Queryable, uploadIds: readonly string[]): Promise<Set<string>> {
    if (uploadIds.length === 0) return new Set();
    const { rows } = await q.query<{ upload_id: string }>('SELECT upload_id FROM multipart_uploads WHERE upload_id = ANY($1::text[])', [uploadIds]);
    return new Set(rows.map((r) => r.upload_id));
  }
}
