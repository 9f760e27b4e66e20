import type { Queryable } from '@lode/db';
import { afterClause } from './keyset.ts';
import type { ProjectRow } from './rows.ts';

export interface NewProject {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  iconUrl: string | null;
  writeRateLimit: { perSecond: number; burst: number } | null;
}

/** A deleted project's row, with the times its deletion set. */
export type DeletedProjectRow = ProjectRow & { deleted_at: Date; purge_after: Date };

/** Which projects a list shows: live ones only, those not purged yet (deleted ones can be restored), or every tombstone too. */
export type ProjectListing = 'live' | 'restorable' | 'all';

const LISTED: Record<ProjectListing, string> = {
  live: 'deleted_at IS NULL',
  restorable: 'purged_at IS NULL',
  all: 'true',
};

export class ProjectsRepository {
  async insert(db: Queryable, p: NewProject): Promise<ProjectRow> {
    const { rows } = await db.query<ProjectRow>(
      `INSERT INTO projects (id, org_id, name, slug, icon_url, write_rate_per_second, write_rate_burst)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [p.id, p.orgId, p.name, p.slug, p.iconUrl, p.writeRateLimit?.perSecond ?? null, p.writeRateLimit?.burst ?? null],
    );
    return rows[0];
  }

  /** The project, deleted or not (a purged one is its tombstone). */
  async find(db: Queryable, id: string): Promise<ProjectRow | undefined> {
    return (await db.query<ProjectRow>('SELECT * FROM projects WHERE id = $1', [id])).rows[0];
  }

  async listByOrg(db: Queryable, orgId: string, after: string[] | undefined, limit: number, listing: ProjectListing = 'live'): Promise<ProjectRow[]> {
    const where = afterClause(after, 3);
    const { rows } = await db.query<ProjectRow>(
      `SELECT * FROM projects WHERE org_id = $1 AND ${LISTED[listing]} AND ${where.sql} ORDER BY created_at, id LIMIT $2`,
      [orgId, limit, ...where.params],
    );
    return rows;
  }

  async setWriteLimit(db: Queryable, id: string, limit: { perSecond: number; burst: number } | null): Promise<ProjectRow | undefined> {
    const { rows } = await db.query<ProjectRow>('UPDATE projects SET write_rate_per_second = $2, write_rate_burst = $3 WHERE id = $1 RETURNING *', [
      id,
      limit?.perSecond ?? null,
      limit?.burst ?? null,
    ]);
    return rows[0];
  }

  /** Marks a live project deleted, to be purged `windowMs` from now; undefined when it is not live (deleted already, or unknown). */
  async markDeleted(db: Queryable, id: string, deletedBy: string | null, windowMs: number): Promise<DeletedProjectRow | undefined> {
    const { rows } = await db.query<DeletedProjectRow>(
      `UPDATE projects SET deleted_at = date_trunc('milliseconds', now()), deleted_by = $2,
         purge_after = date_trunc('milliseconds', now()) + make_interval(secs => $3::double precision / 1000)
       WHERE id = $1 AND deleted_at IS NULL RETURNING *`,
      [id, deletedBy, windowMs],
    );
    return rows[0];
  }

  /**
   * Brings a deleted project back unless its purge has begun. The purge claims the row under its
   * lock first, so of the two racing, exactly one wins: this update, run after the claim committed,
   * re-reads the row and matches nothing.
   */
  async restore(db: Queryable, id: string): Promise<ProjectRow | undefined> {
    const { rows } = await db.query<ProjectRow>(
      `UPDATE projects SET deleted_at = NULL, deleted_by = NULL, purge_after = NULL
       WHERE id = $1 AND deleted_at IS NOT NULL AND purged_at IS NULL RETURNING *`,
      [id],
    );
    return rows[0];
  }

  /**
   * Claims up to `limit` deletions whose window has passed, marking them purged. SKIP LOCKED lets
   * replicas running the job at once each take other projects; the caller's transaction writes the
   * event with the claim, so a claimed project is announced exactly when the claim commits.
   */
  async claimDue(db: Queryable, limit: number): Promise<ProjectRow[]> {
    const { rows } = await db.query<ProjectRow>(
      `UPDATE projects SET purged_at = date_trunc('milliseconds', now())
       WHERE id IN (
         SELECT id FROM projects WHERE deleted_at IS NOT NULL AND purged_at IS NULL AND purge_after <= now()
         ORDER BY purge_after LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [limit],
    );
    return rows;
  }
}
