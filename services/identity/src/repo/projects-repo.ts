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

export class ProjectsRepository {
  async insert(db: Queryable, p: NewProject): Promise<ProjectRow> {
    const { rows } = await db.query<ProjectRow>(
      `INSERT INTO projects (id, org_id, name, slug, icon_url, write_rate_per_second, write_rate_burst)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [p.id, p.orgId, p.name, p.slug, p.iconUrl, p.writeRateLimit?.perSecond ?? null, p.writeRateLimit?.burst ?? null],
    );
    return rows[0];
  }

  async find(db: Queryable, id: string): Promise<ProjectRow | undefined> {
    return (await db.query<ProjectRow>('SELECT * FROM projects WHERE id = $1', [id])).rows[0];
  }

  async listByOrg(db: Queryable, orgId: string, after: string[] | undefined, limit: number): Promise<ProjectRow[]> {
    const where = afterClause(after, 3);
    const { rows } = await db.query<ProjectRow>(`SELECT * FROM projects WHERE org_id = $1 AND ${where.sql} ORDER BY created_at, id LIMIT $2`, [
      orgId,
      limit,
      ...where.params,
    ]);
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
}
