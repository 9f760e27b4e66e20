import type { Queryable } from '@lode/db';

/** An object nothing referred to when it was marked: its project, content and size. */
export interface CollectableObject {
  storageKey: string;
  projectId: string;
  sha256: string;
  size: number;
}

/** Where a batch of marks ended, for the next to start after. */
export interface MarkPosition {
  /** As Postgres prints it, to the microsecond: a Date would round it, and the next batch could take the last row again. */
  markedAt: string;
  storageKey: string;
}

/** What still refers to a marked object, as the collector checks it under the object's blob lock. */
export interface ObjectReferences {
  storageKey: string;
  /** A live version uses it (a dedup confirm that raced the mark): it stays, unmarked. */
  live: boolean;
  /** Its blob is a Git LFS object: it stays, unmarked. */
  pinned: boolean;
  /** An open dedup reservation names it: it waits for that to confirm or expire. */
  reserved: boolean;
}

const OBJECT = `storage_key AS "storageKey", project_id AS "projectId", sha256, size`;

/** SQL for marked objects (`collectable_objects`), the checks before one is swept, and the sweep. */
export class CollectableRepository {
  /**
   * Marks objects an obliteration left unreferenced. A mark already there starts its grace again; a
   * swept one (its object being deleted) is left alone.
   */
  async mark(tx: Queryable, objects: readonly CollectableObject[]): Promise<void> {
    if (objects.length === 0) return;
    await tx.query(
      `INSERT INTO collectable_objects (storage_key, project_id, sha256, size)
       SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::bigint[])
       ON CONFLICT (storage_key) DO UPDATE SET marked_at = now() WHERE collectable_objects.swept_at IS NULL`,
      [objects.map((o) => o.storageKey), objects.map((o) => o.projectId), objects.map((o) => o.sha256), objects.map((o) => o.size)],
    );
  }

  /**
   * Up to `limit` marks older than `before`, oldest first, after `after` (the last of the previous
   * batch: marks left for a later run are not taken again in this one), locked until the transaction
   * ends (other replicas skip them).
   */
  async lockDue(tx: Queryable, before: Date, after: MarkPosition | null, limit: number): Promise<(CollectableObject & MarkPosition)[]> {
    const { rows } = await tx.query<CollectableObject & MarkPosition>(
      `SELECT ${OBJECT}, marked_at::text AS "markedAt" FROM collectable_objects
       WHERE swept_at IS NULL AND marked_at < $1 AND ($2::timestamptz IS NULL OR (marked_at, storage_key) > ($2, $3))
       ORDER BY marked_at, storage_key LIMIT $4 FOR UPDATE SKIP LOCKED`,
      [before, after?.markedAt ?? null, after?.storageKey ?? null, limit],
    );
    return rows;
  }

  /**
   * Locks the blob rows that hold these objects (content and key), skipping rows another transaction
   * holds (a confirm's FOR SHARE, a verify's update): answers the keys whose blob is locked here, and
   * those whose blob exists but is busy, to be tried again next run.
   */
  async lockBlobs(tx: Queryable, objects: readonly CollectableObject[]): Promise<{ locked: Set<string>; busy: Set<string> }> {
    const keys = [objects.map((o) => o.projectId), objects.map((o) => o.sha256), objects.map((o) => o.size), objects.map((o) => o.storageKey)];
    const [existing, locked] = [
      await tx.query<{ storage_key: string }>(
        `SELECT b.storage_key FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[]) AS o(project_id, sha256, size, storage_key)
         JOIN blobs b ON b.project_id = o.project_id AND b.sha256 = o.sha256 AND b.size = o.size AND b.storage_key = o.storage_key`,
        keys,
      ),
      await tx.query<{ storage_key: string }>(
        `SELECT b.storage_key FROM blobs b
         JOIN unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[]) AS o(project_id, sha256, size, storage_key)
           ON b.project_id = o.project_id AND b.sha256 = o.sha256 AND b.size = o.size AND b.storage_key = o.storage_key
         FOR UPDATE OF b SKIP LOCKED`,
        keys,
      ),
    ];
    const lockedKeys = new Set(locked.rows.map((r) => r.storage_key));
    return { locked: lockedKeys, busy: new Set(existing.rows.map((r) => r.storage_key).filter((key) => !lockedKeys.has(key))) };
  }

  /**
   * What refers to each object now. A statement of its own, after the locks: in READ COMMITTED it
   * sees every confirm that committed before the locks were granted. One index probe per object and
   * kind of reference.
   */
  async references(tx: Queryable, objects: readonly CollectableObject[]): Promise<ObjectReferences[]> {
    const { rows } = await tx.query<ObjectReferences>(
      `SELECT o.storage_key AS "storageKey", live.found IS NOT NULL AS live, pin.found IS NOT NULL AS pinned, reservation.found IS NOT NULL AS reserved
       FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[]) AS o(project_id, sha256, size, storage_key)
       -- LIMIT 1 probes: one index lookup per object, never a join over every version of the table.
       LEFT JOIN LATERAL (
         SELECT 1 AS found FROM versions v WHERE v.storage_key = o.storage_key AND v.purged_at IS NULL AND v.project_id = o.project_id LIMIT 1
       ) live ON true
       LEFT JOIN LATERAL (
         SELECT 1 AS found FROM blobs b
         WHERE b.project_id = o.project_id AND b.sha256 = o.sha256 AND b.size = o.size AND b.storage_key = o.storage_key AND b.pinned LIMIT 1
       ) pin ON true
       LEFT JOIN LATERAL (SELECT 1 AS found FROM uploads u WHERE u.storage_key = o.storage_key AND u.dedup LIMIT 1) reservation ON true`,
      [objects.map((o) => o.projectId), objects.map((o) => o.sha256), objects.map((o) => o.size), objects.map((o) => o.storageKey)],
    );
    return rows;
  }

  /** Marks that turned out referenced: they go (a later obliteration marks again). */
  async unmark(tx: Queryable, storageKeys: readonly string[]): Promise<void> {
    if (storageKeys.length === 0) return;
    await tx.query('DELETE FROM collectable_objects WHERE storage_key = ANY($1::text[])', [storageKeys]);
  }

  /**
   * Sweeps these objects, in one statement: their blob rows go (no dedup can find them any more),
   * their marks become swept, and each project's usage loses their bytes and count. Run under
   * lockBlobs, after references found none.
   */
  async sweep(tx: Queryable, objects: readonly CollectableObject[]): Promise<void> {
    if (objects.length === 0) return;
    await tx.query(
      `WITH o AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[]) AS o(project_id, sha256, size, storage_key)),
       blob_rows AS (
         DELETE FROM blobs b USING o
         WHERE b.project_id = o.project_id AND b.sha256 = o.sha256 AND b.size = o.size AND b.storage_key = o.storage_key AND NOT b.pinned
       ),
       swept AS (
         UPDATE collectable_objects c SET swept_at = now() FROM o WHERE c.storage_key = o.storage_key AND c.swept_at IS NULL
         RETURNING c.project_id, c.size
       )
       INSERT INTO usage_deltas (project_id, logical_bytes, stored_bytes, versions, objects)
       SELECT project_id, 0, -sum(size), 0, -count(*) FROM swept GROUP BY project_id ORDER BY project_id`,
      [objects.map((o) => o.projectId), objects.map((o) => o.sha256), objects.map((o) => o.size), objects.map((o) => o.storageKey)],
    );
  }

  /** Up to `limit` swept objects whose deletion from storage is still to do, locked until the transaction ends. */
  async lockSwept(tx: Queryable, limit: number): Promise<CollectableObject[]> {
    const { rows } = await tx.query<CollectableObject>(
      `SELECT ${OBJECT} FROM collectable_objects WHERE swept_at IS NOT NULL ORDER BY swept_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows;
  }

  async forget(tx: Queryable, storageKeys: readonly string[]): Promise<void> {
    await tx.query('DELETE FROM collectable_objects WHERE storage_key = ANY($1::text[]) AND swept_at IS NOT NULL', [storageKeys]);
  }

  /** The project's marked objects not swept yet: what usage reports as collectable. */
  async pending(q: Queryable, projectId: string): Promise<{ objects: number; bytes: number }> {
    const { rows } = await q.query<{ objects: number; bytes: number }>(
      `SELECT count(*)::bigint AS objects, coalesce(sum(size), 0)::bigint AS bytes FROM collectable_objects WHERE project_id = $1 AND swept_at IS NULL`,
      [projectId],
    );
    return rows[0];
  }

  /** Every project's marked objects waiting, and swept objects still to delete, for the gauges. */
  async backlog(q: Queryable): Promise<{ marked: number; markedBytes: number; swept: number }> {
    const { rows } = await q.query<{ marked: number; markedBytes: number; swept: number }>(
      `SELECT count(*) FILTER (WHERE swept_at IS NULL)::bigint AS marked, coalesce(sum(size) FILTER (WHERE swept_at IS NULL), 0)::bigint AS "markedBytes",
              count(*) FILTER (WHERE swept_at IS NOT NULL)::bigint AS swept
       FROM collectable_objects`,
    );
    return rows[0];
  }
}
