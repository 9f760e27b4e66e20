import type { Queryable } from '@lode/db';

export interface PluginReservation {
  id: string;
  orgId: string;
  name: string;
  version: string;
  storageKey: string;
  sha256: string;
  size: number;
  description: string | null;
  uploaderId: string;
  expiresAt: Date;
}

export interface PluginUploadRow {
  id: string;
  name: string;
  version: string;
  storage_key: string;
  sha256: string;
  size: number;
  description: string | null;
  state: 'reserved' | 'confirmed';
}

export interface PluginRow {
  name: string;
  latestVersion: string;
  description: string | null;
  updatedAt: Date;
}

export interface PluginVersionRow {
  name: string;
  version: string;
  versionOrder: string;
  sha256: string;
  size: number;
  storageKey: string;
  description: string | null;
  publishedById: string;
  publishedByName: string;
  createdAt: Date;
}

export interface NewPluginVersion extends Omit<PluginVersionRow, 'createdAt'> {
  orgId: string;
  uploadId: string;
}

const VERSION_COLUMNS = `name, version, version_order AS "versionOrder", sha256, size, storage_key AS "storageKey", description,
  published_by_id AS "publishedById", published_by_name AS "publishedByName", created_at AS "createdAt"`;

/**
 * SQL for the plugin tables of the `files` schema (migration 0030). Every statement names the org:
 * a plugin is never reachable from another org. Methods that must share a transaction say so.
 */
export class PluginsRepository {
  async versionExists(q: Queryable, orgId: string, name: string, versionOrder: string): Promise<boolean> {
    const { rows } = await q.query('SELECT 1 FROM plugin_versions WHERE org_id = $1 AND name = $2 AND version_order = $3', [orgId, name, versionOrder]);
    return rows.length > 0;
  }

  async pluginExists(q: Queryable, orgId: string, name: string): Promise<boolean> {
    const { rows } = await q.query('SELECT 1 FROM plugins WHERE org_id = $1 AND name = $2', [orgId, name]);
    return rows.length > 0;
  }

  async reserve(q: Queryable, r: PluginReservation): Promise<void> {
    await q.query(
      `INSERT INTO plugin_uploads (id, org_id, name, version, storage_key, sha256, size, description, uploader_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [r.id, r.orgId, r.name, r.version, r.storageKey, r.sha256, r.size, r.description, r.uploaderId, r.expiresAt],
    );
  }

  async findUpload(q: Queryable, orgId: string, storageKey: string): Promise<PluginUploadRow | undefined> {
    const { rows } = await q.query<PluginUploadRow>(
      'SELECT id, name, version, storage_key, sha256, size, description, state FROM plugin_uploads WHERE org_id = $1 AND storage_key = $2',
      [orgId, storageKey],
    );
    return rows[0];
  }

  /** Locks the reservation until the transaction ends, so the collector cannot remove it meanwhile; its state, or undefined when gone. */
  async lockUpload(tx: Queryable, uploadId: string): Promise<PluginUploadRow['state'] | undefined> {
    const { rows } = await tx.query<{ state: PluginUploadRow['state'] }>('SELECT state FROM plugin_uploads WHERE id = $1 FOR UPDATE', [uploadId]);
    return rows[0]?.state;
  }

  /** The version a reservation became, for a repeated confirm. */
  async versionOfUpload(q: Queryable, orgId: string, uploadId: string): Promise<PluginVersionRow | undefined> {
    const { rows } = await q.query<PluginVersionRow>(`SELECT ${VERSION_COLUMNS} FROM plugin_versions WHERE org_id = $1 AND upload_id = $2`, [orgId, uploadId]);
    return rows[0];
  }

  /**
   * Records the version, confirms its reservation and moves the plugin's newest version forward if
   * this one has higher precedence, in one statement; undefined when the version already exists. Two
   * racing confirms of one version meet at the primary key: the second waits for the first and then
   * inserts nothing. Concurrent versions of one plugin serialize on its row, each comparing against
   * the committed newest. Run in the transaction that writes the outbox event.
   */
  async recordVersion(tx: Queryable, v: NewPluginVersion): Promise<PluginVersionRow | undefined> {
    const { rows } = await tx.query<PluginVersionRow>(
      `WITH version_row AS (
         INSERT INTO plugin_versions (org_id, name, version_order, version, sha256, size, storage_key, description, published_by_id, published_by_name, upload_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT DO NOTHING
         RETURNING ${VERSION_COLUMNS}
       ),
       reservation AS (
         UPDATE plugin_uploads SET state = 'confirmed' WHERE id = $11 AND EXISTS (SELECT 1 FROM version_row) RETURNING id
       ),
       plugin AS (
         INSERT INTO plugins AS p (org_id, name, latest_version, latest_version_order, description, updated_at)
         SELECT $1, name, version, "versionOrder", description, "createdAt" FROM version_row
         ON CONFLICT (org_id, name) DO UPDATE SET
           latest_version = CASE WHEN excluded.latest_version_order > p.latest_version_order THEN excluded.latest_version ELSE p.latest_version END,
           description = CASE WHEN excluded.latest_version_order > p.latest_version_order THEN excluded.description ELSE p.description END,
           latest_version_order = GREATEST(p.latest_version_order, excluded.latest_version_order),
           updated_at = GREATEST(p.updated_at, excluded.updated_at)
       )
       SELECT * FROM version_row`,
      [v.orgId, v.name, v.versionOrder, v.version, v.sha256, v.size, v.storageKey, v.description, v.publishedById, v.publishedByName, v.uploadId],
    );
    return rows[0];
  }

  /** The org's plugins by name, after `afterName` (a page's last). */
  async listPlugins(q: Queryable, orgId: string, afterName: string | undefined, limit: number): Promise<PluginRow[]> {
    const { rows } = await q.query<PluginRow>(
      `SELECT name, latest_version AS "latestVersion", description, updated_at AS "updatedAt" FROM plugins
       WHERE org_id = $1 AND ($2::text IS NULL OR name > $2) ORDER BY name LIMIT $3`,
      [orgId, afterName ?? null, limit],
    );
    return rows;
  }

  /** A plugin's versions, newest (highest precedence) first, below `beforeOrder` (a page's last). */
  async listVersions(q: Queryable, orgId: string, name: string, beforeOrder: string | undefined, limit: number): Promise<PluginVersionRow[]> {
    const { rows } = await q.query<PluginVersionRow>(
      `SELECT ${VERSION_COLUMNS} FROM plugin_versions
       WHERE org_id = $1 AND name = $2 AND ($3::text IS NULL OR version_order < $3) ORDER BY version_order DESC LIMIT $4`,
      [orgId, name, beforeOrder ?? null, limit],
    );
    return rows;
  }

  /**
   * Expired, never-confirmed publishes, locked until the transaction ends (SKIP LOCKED: replicas and
   * confirms do not wait on each other), for the reservation collector. Each has an object of its own.
   */
  async lockExpiredReservations(tx: Queryable, before: Date, limit: number): Promise<{ id: string; storage_key: string; dedup: boolean }[]> {
    const { rows } = await tx.query<{ id: string; storage_key: string; dedup: boolean }>(
      `SELECT id, storage_key, false AS dedup FROM plugin_uploads WHERE state = 'reserved' AND expires_at < $1
       ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [before, limit],
    );
    return rows;
  }

  async deleteReservations(tx: Queryable, ids: readonly string[]): Promise<void> {
    await tx.query('DELETE FROM plugin_uploads WHERE id = ANY($1::uuid[])', [ids]);
  }
}
