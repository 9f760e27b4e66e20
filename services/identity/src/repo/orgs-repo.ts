import type { Queryable } from '@lode/db';
import { afterClause } from './keyset.ts';
import type { OrgRow } from './rows.ts';

export class OrgsRepository {
  async insert(db: Queryable, org: { id: string; name: string; slug: string }): Promise<OrgRow> {
    const { rows } = await db.query<OrgRow>('INSERT INTO orgs (id, name, slug) VALUES ($1, $2, $3) RETURNING *', [org.id, org.name, org.slug]);
    return rows[0];
  }

  async find(db: Queryable, id: string): Promise<OrgRow | undefined> {
    return (await db.query<OrgRow>('SELECT * FROM orgs WHERE id = $1', [id])).rows[0];
  }

  async list(db: Queryable, after: string[] | undefined, limit: number): Promise<OrgRow[]> {
    const where = afterClause(after, 2);
    const { rows } = await db.query<OrgRow>(`SELECT * FROM orgs WHERE ${where.sql} ORDER BY created_at, id LIMIT $1`, [limit, ...where.params]);
    return rows;
  }
}
