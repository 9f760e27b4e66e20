import type { Queryable } from '@lode/db';

export interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  description: string;
  secret: string;
  disabled: boolean;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookChanges {
  url?: string;
  events?: readonly string[];
  description?: string;
  disabled?: boolean;
  secret?: string;
}

const COLUMNS = `id, url, events, description, secret, disabled, disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** SQL for the `webhooks` table; every statement is scoped to the caller's project. */
export class WebhooksRepository {
  /** Inserts unless the project already has `max` webhooks; answers the row, or undefined at the limit. */
  async insert(
    q: Queryable,
    projectId: string,
    hook: { id: string; url: string; events: readonly string[]; description: string; secret: string },
    max: number,
  ): Promise<WebhookRow | undefined> {
    const { rows } = await q.query<WebhookRow>(
      `INSERT INTO webhooks (id, project_id, url, events, description, secret)
       SELECT $1, $2, $3, $4::text[], $5, $6
       WHERE (SELECT count(*) FROM webhooks WHERE project_id = $2) < $7
       RETURNING ${COLUMNS}`,
      [hook.id, projectId, hook.url, hook.events, hook.description, hook.secret, max],
    );
    return rows[0];
  }

  async list(q: Queryable, projectId: string): Promise<WebhookRow[]> {
    const { rows } = await q.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE project_id = $1 ORDER BY created_at, id`, [projectId]);
    return rows;
  }

  async get(q: Queryable, projectId: string, id: string): Promise<WebhookRow | undefined> {
    const { rows } = await q.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return rows[0];
  }

  /** Re-enabling by hand clears the reason the system disabled it for. */
  async update(q: Queryable, projectId: string, id: string, changes: WebhookChanges): Promise<WebhookRow | undefined> {
    const { rows } = await q.query<WebhookRow>(
      `UPDATE webhooks SET
         url = coalesce($3, url),
         events = coalesce($4::text[], events),
         description = coalesce($5, description),
         disabled = coalesce($6, disabled),
         disabled_reason = CASE WHEN $6 IS NULL THEN disabled_reason ELSE NULL END,
         secret = coalesce($7, secret),
         updated_at = now()
       WHERE project_id = $1 AND id = $2
       RETURNING ${COLUMNS}`,
      [projectId, id, changes.url ?? null, changes.events ?? null, changes.description ?? null, changes.disabled ?? null, changes.secret ?? null],
    );
    return rows[0];
  }

  /** The endpoint answered 410: it stays, disabled, until someone enables it again. */
  async disable(q: Queryable, id: string, reason: string): Promise<void> {
    await q.query('UPDATE webhooks SET disabled = true, disabled_reason = $2, updated_at = now() WHERE id = $1', [id, reason]);
  }

  async delete(q: Queryable, projectId: string, id: string): Promise<boolean> {
    const { rowCount } = await q.query('DELETE FROM webhooks WHERE project_id = $1 AND id = $2', [projectId, id]);
    return (rowCount ?? 0) > 0;
  }

  /** One secret stored in the given format (`prefix`), of any project: what the service's key must open. */
  async anySecretStartingWith(q: Queryable, prefix: string): Promise<StoredSecret | undefined> {
    const { rows } = await q.query<StoredSecret>(`SELECT id, secret FROM webhooks WHERE starts_with(secret, $1) LIMIT 1`, [prefix]);
    return rows[0];
  }

  /** Up to `limit` secrets of any project not stored in the given format. */
  async secretsNotStartingWith(q: Queryable, prefix: string, limit: number): Promise<StoredSecret[]> {
    const { rows } = await q.query<StoredSecret>(`SELECT id, secret FROM webhooks WHERE NOT starts_with(secret, $1) LIMIT $2`, [prefix, limit]);
    return rows;
  }

  /**
   * Replaces each secret that still holds the value it was read with: a secret rotated (or replaced
   * by another replica) since is left as it is. Answers how many were replaced.
   */
  async replaceSecrets(q: Queryable, replacements: readonly { id: string; from: string; to: string }[]): Promise<number> {
    const { rowCount } = await q.query(
      `UPDATE webhooks w SET secret = r.to_secret
       FROM unnest($1::uuid[], $2::text[], $3::text[]) AS r(id, from_secret, to_secret)
       WHERE w.id = r.id AND w.secret = r.from_secret`,
      [replacements.map((r) => r.id), replacements.map((r) => r.from), replacements.map((r) => r.to)],
    );
    return rowCount ?? 0;
  }
}

export interface StoredSecret {
  id: string;
  secret: string;
}
