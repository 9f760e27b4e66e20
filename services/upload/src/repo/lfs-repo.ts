import type { Queryable } from '@lode/db';

/** Content as the LFS protocol names it: SHA-256 (hex) and size. */
export interface ContentRef {
  sha256: string;
  size: number;
}

export interface StoredBlob extends ContentRef {
  storage_key: string;
}

export interface LfsUploadRow extends ContentRef {
  id: string;
  storage_key: string;
}

export interface NewLfsUpload extends ContentRef {
  id: string;
  storageKey: string;
  expiresAt: string;
}

/** SQL for Git LFS uploads (`lfs_uploads`) and the project's content store (`blobs`) they fill. */
export class LfsRepository {
  /**
   * The contents among `refs` that the project's store holds, with their objects' keys. An object
   * marked for collection (its versions obliterated) is not held any more: a push uploads it again.
   */
  async storedBlobs(q: Queryable, projectId: string, refs: readonly ContentRef[]): Promise<StoredBlob[]> {
    const { rows } = await q.query<StoredBlob>(
      `SELECT b.sha256, b.size, b.storage_key
       FROM unnest($2::text[], $3::bigint[]) AS r(sha256, size)
       JOIN blobs b ON b.project_id = $1 AND b.sha256 = r.sha256 AND b.size = r.size
       WHERE NOT EXISTS (SELECT 1 FROM collectable_objects c WHERE c.storage_key = b.storage_key)`,
      [projectId, refs.map((r) => r.sha256), refs.map((r) => r.size)],
    );
    return rows;
  }

  /**
   * Pins these stored contents: a git history now refers to them (a push found them stored and sent
   * nothing), so the collector must never delete them. Only rows not pinned yet are written.
   */
  async pinBlobs(q: Queryable, projectId: string, refs: readonly ContentRef[]): Promise<void> {
    if (refs.length === 0) return;
    await q.query(
      `UPDATE blobs b SET pinned = true FROM unnest($2::text[], $3::bigint[]) AS r(sha256, size)
       WHERE b.project_id = $1 AND b.sha256 = r.sha256 AND b.size = r.size AND NOT b.pinned`,
      [projectId, refs.map((r) => r.sha256), refs.map((r) => r.size)],
    );
  }

  /**
   * Opens an upload for each content, or extends the one already open (its key is kept, so every
   * batch for the same object hands out the same key); answers each content's key.
   */
  async openUploads(q: Queryable, projectId: string, uploaderId: string, uploads: readonly NewLfsUpload[]): Promise<StoredBlob[]> {
    const { rows } = await q.query<StoredBlob>(
      `INSERT INTO lfs_uploads (id, project_id, sha256, size, storage_key, uploader_id, expires_at)
       SELECT id, $1, sha256, size, storage_key, $2, expires_at
       FROM unnest($3::uuid[], $4::text[], $5::bigint[], $6::text[], $7::timestamptz[]) AS t(id, sha256, size, storage_key, expires_at)
       ON CONFLICT (project_id, sha256, size) DO UPDATE SET expires_at = greatest(lfs_uploads.expires_at, excluded.expires_at)
       RETURNING sha256, size, storage_key`,
      [
        projectId,
        uploaderId,
        uploads.map((u) => u.id),
        uploads.map((u) => u.sha256),
        uploads.map((u) => u.size),
        uploads.map((u) => u.storageKey),
        uploads.map((u) => u.expiresAt),
      ],
    );
    return rows;
  }

  async findUpload(q: Queryable, projectId: string, ref: ContentRef): Promise<LfsUploadRow | undefined> {
    const { rows } = await q.query<LfsUploadRow>('SELECT id, sha256, size, storage_key FROM lfs_uploads WHERE project_id = $1 AND sha256 = $2 AND size = $3', [
      projectId,
      ref.sha256,
      ref.size,
    ]);
    return rows[0];
  }

  /** Locks the upload until the transaction ends (the collector skips locked rows); false when it is gone. */
  async lockUpload(tx: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await tx.query('SELECT 1 FROM lfs_uploads WHERE id = $1 FOR UPDATE', [id]);
    return rowCount === 1;
  }

  /**
   * Adds a verified upload to the project's content store (an object of the project's usage),
   * pinned, and closes it; false when the store already held that content (another push or a Lode
   * upload stored it meanwhile), whose object then stays the one downloads get, pinned now. An
   * object held but marked for collection gives way to this one.
   */
  async storeUpload(tx: Queryable, projectId: string, upload: LfsUploadRow): Promise<boolean> {
    const { rows } = await tx.query<{ stored: boolean }>(
      `WITH closed AS (DELETE FROM lfs_uploads WHERE id = $5),
       kept AS (
         INSERT INTO blobs AS b (project_id, sha256, size, storage_key, pinned) VALUES ($1, $2, $3, $4, true)
         ON CONFLICT (project_id, sha256, size) DO UPDATE SET pinned = true,
           storage_key = CASE WHEN EXISTS (SELECT 1 FROM collectable_objects c WHERE c.storage_key = b.storage_key) THEN excluded.storage_key ELSE b.storage_key END
         RETURNING storage_key
       ),
       stored AS (SELECT 1 FROM kept WHERE storage_key = $4),
       usage AS (
         INSERT INTO usage_deltas (project_id, logical_bytes, stored_bytes, versions, objects)
         SELECT $1, 0, $3, 0, 1 FROM stored
       )
       SELECT EXISTS (SELECT 1 FROM stored) AS stored`,
      [projectId, upload.sha256, upload.size, upload.storage_key, upload.id],
    );
    return rows[0]?.stored ?? false;
  }

  async lockExpiredReservations(tx: Queryable, before: Date, limit: number): Promise<{ id: string; storage_key: string; dedup: boolean }[]> {
    const { rows } = await tx.query<{ id: string; storage_key: string; dedup: boolean }>(
      `SELECT id, storage_key, false AS dedup FROM lfs_uploads
       WHERE expires_at < $1
       ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [before, limit],
    );
    return rows;
  }

  async deleteReservations(tx: Queryable, ids: readonly string[]): Promise<void> {
    await tx.query('DELETE FROM lfs_uploads WHERE id = ANY($1::uuid[])', [ids]);
  }
}
