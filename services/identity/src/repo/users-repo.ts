import type { Queryable } from '@lode/db';
import { afterClause } from './keyset.ts';
import type { UserRow } from './rows.ts';

export class UsersRepository {
  async insert(db: Queryable, user: { id: string; name: string; avatarUrl: string | null; email: string | null }): Promise<UserRow> {
    const { rows } = await db.query<UserRow>('INSERT INTO users (id, name, avatar_url, email) VALUES ($1, $2, $3, $4) RETURNING *', [
      user.id,
      user.name,
      user.avatarUrl,
      user.email,
    ]);
    return rows[0];
  }

  async setEmail(db: Queryable, id: string, email: string | null): Promise<UserRow | undefined> {
    return (await db.query<UserRow>('UPDATE users SET email = $2 WHERE id = $1 RETURNING *', [id, email])).rows[0];
  }

  async find(db: Queryable, id: string): Promise<UserRow | undefined> {
    return (await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id])).rows[0];
  }

  /** Emails compare case-insensitively, as the unique index does. */
  async findByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
    return (await db.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email])).rows[0];
  }

  async list(db: Queryable, after: string[] | undefined, limit: number): Promise<UserRow[]> {
    const where = afterClause(after, 2);
    const { rows } = await db.query<UserRow>(`SELECT * FROM users WHERE ${where.sql} ORDER BY created_at, id LIMIT $1`, [limit, ...where.params]);
    return rows;
  }
}
