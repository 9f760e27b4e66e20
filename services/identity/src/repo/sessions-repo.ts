import type { Queryable } from '@lode/db';
import type { SessionLifetime } from '../domain/session-rules.ts';
import type { UserRow } from './rows.ts';

export interface SessionUserRow extends UserRow {
  session_id: string;
  /** Hex SHA-256 of the session's CSRF token. */
  csrf_token_hash: string;
}

/** Sign-in links, sessions and OpenID Connect identities; tokens are looked up by their SHA-256 only. */
export class SessionsRepository {
  async insertLink(db: Queryable, link: { tokenHash: string; userId: string; ttlMs: number }): Promise<Date> {
    const { rows } = await db.query<{ expires_at: Date }>(
      `INSERT INTO sign_in_links (token_hash, user_id, expires_at)
       VALUES (decode($1, 'hex'), $2, date_trunc('milliseconds', now()) + $3 * interval '1 millisecond') RETURNING expires_at`,
      [link.tokenHash, link.userId, link.ttlMs],
    );
    return rows[0].expires_at;
  }

  /** Marks the link used and answers its user; a second redemption, even a concurrent one, matches nothing. */
  async spendLink(db: Queryable, tokenHash: string): Promise<string | undefined> {
    const { rows } = await db.query<{ user_id: string }>(
      `UPDATE sign_in_links SET used_at = now()
       WHERE token_hash = decode($1, 'hex') AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
      [tokenHash],
    );
    return rows[0]?.user_id;
  }

  async insertSession(db: Queryable, s: { id: string; tokenHash: string; csrfTokenHash: string; userId: string }): Promise<void> {
    await db.query(`INSERT INTO sessions (id, token_hash, csrf_token_hash, user_id) VALUES ($1, decode($2, 'hex'), decode($3, 'hex'), $4)`, [
      s.id,
      s.tokenHash,
      s.csrfTokenHash,
      s.userId,
    ]);
  }

  /**
   * The live session and its user, counting this as activity. last_seen_at is written at most once
   * a minute per session, so a page's burst of calls is one write, not one per call.
   */
  async touch(db: Queryable, tokenHash: string, lifetime: SessionLifetime): Promise<SessionUserRow | undefined> {
    const { rows } = await db.query<SessionUserRow>(
      `WITH live AS (
         SELECT id FROM sessions
         WHERE token_hash = decode($1, 'hex') AND ended_at IS NULL
           AND last_seen_at > now() - $2 * interval '1 millisecond' AND created_at > now() - $3 * interval '1 millisecond'
       ), touched AS (
         UPDATE sessions s SET last_seen_at = date_trunc('milliseconds', now())
         FROM live WHERE s.id = live.id AND s.last_seen_at < now() - interval '1 minute'
       )
       SELECT u.*, s.id AS session_id, encode(s.csrf_token_hash, 'hex') AS csrf_token_hash
       FROM live JOIN sessions s ON s.id = live.id JOIN users u ON u.id = s.user_id`,
      [tokenHash, lifetime.idleMs, lifetime.maxAgeMs],
    );
    return rows[0];
  }

  async end(db: Queryable, tokenHash: string): Promise<boolean> {
    const { rowCount } = await db.query(`UPDATE sessions SET ended_at = now() WHERE token_hash = decode($1, 'hex') AND ended_at IS NULL`, [tokenHash]);
    return rowCount === 1;
  }

  /** Removes links that can no longer be spent and sessions that can no longer be resumed; answers how many. */
  async purgeSpent(db: Queryable, lifetime: SessionLifetime): Promise<{ links: number; sessions: number }> {
    const links = await db.query('DELETE FROM sign_in_links WHERE used_at IS NOT NULL OR expires_at <= now()');
    const sessions = await db.query(
      `DELETE FROM sessions
       WHERE ended_at IS NOT NULL OR last_seen_at <= now() - $1 * interval '1 millisecond' OR created_at <= now() - $2 * interval '1 millisecond'`,
      [lifetime.idleMs, lifetime.maxAgeMs],
    );
    return { links: links.rowCount ?? 0, sessions: sessions.rowCount ?? 0 };
  }

  async findOidcUser(db: Queryable, issuer: string, subject: string): Promise<string | undefined> {
    const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM oidc_identities WHERE issuer = $1 AND subject = $2', [issuer, subject]);
    return rows[0]?.user_id;
  }

  /** Links an identity once; a concurrent first sign-in keeps the first link. */
  async linkOidc(db: Queryable, issuer: string, subject: string, userId: string): Promise<void> {
    await db.query('INSERT INTO oidc_identities (issuer, subject, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [issuer, subject, userId]);
  }
}
