import type { Queryable } from '@lode/db';
import { afterClause } from './keyset.ts';
import type { OrgRow } from './rows.ts';

export class OrgsRepository {
  readonly #db: Queryable;
  constructor(db: Queryable) {
    this.#db = db;
  }

  async insert(org: { id: string; name: string; slug: string }): Promise<OrgRow> {
    const { rows } = await this.#db.query<OrgRow>(
      'INSERT INTO orgs (id, name, slug) VALUES ($1, $2, $3) RETURNING *',
      [org.id, org.name, org.slug],
    );
    return rows[0];
  }

  async find(id: string): Promise<OrgRow | undefined> {
    return (await this.#db.query<OrgRow>('SELECT * FROM orgs WHERE id = $1', [id])).rows[0];
  }

  async list(after: string[] | undefined, limit: number): Promise<OrgRow[]> {
    const where = afterClause(after, 2);
    const { rows } = await this.#db.query<OrgRow>(
      `SELECT * FROM orgs WHERE ${where.sql} ORDER BY created_at, id LIMIT $1`,
      [limit, ...where.params],
    );
    return rows;
  }
}
