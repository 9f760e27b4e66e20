import type { drafts } from '@lode/contracts';
import { textList, UNIT_SEPARATOR, type Queryable } from '@lode/db';

/** Whose draft it is: a draft answers only its own user, in its own project. */
export interface DraftOwner {
  projectId: string;
  userId: string;
}

/** A live draft as stored: the reply's fields and the revision its staging calls bump. */
export interface DraftRow extends drafts.Draft {
  revision: number;
}

/** A staged entry with what the upload service resolved for it (null fields for a delete). */
export interface StagedEntry {
  fileId: string;
  action: 'add' | 'modify' | 'delete';
  version: number | null;
  path: string;
  pathKey: string;
  versionId: string | null;
  sha256: string | null;
  size: number | null;
  storageKey: string | null;
  uploaderId: string | null;
  uploaderName: string | null;
  versionCreatedAt: string | null;
}

const DRAFT_COLUMNS = `d.id, d.message, d.branch, d.revision, d.created_at AS "createdAt", d.expires_at AS "expiresAt", d.file_count AS "fileCount"`;

interface StoredDraft extends Omit<DraftRow, 'createdAt' | 'expiresAt'> {
  createdAt: Date;
  expiresAt: Date;
}

function toDraft(row: StoredDraft): DraftRow {
  return { ...row, createdAt: row.createdAt.toISOString(), expiresAt: row.expiresAt.toISOString() };
}

/**
 * SQL for drafts and their staged entries. An expired draft reads as gone everywhere, whether or not
 * the sweep removed it yet.
 */
export class DraftsRepository {
  async create(q: Queryable, owner: DraftOwner, draft: { id: string; message: string; branch: string; ttlMs: number }): Promise<DraftRow> {
    const { rows } = await q.query<StoredDraft>(
      `WITH d AS (
         INSERT INTO drafts (id, project_id, user_id, message, branch, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
         RETURNING *
       )
       SELECT ${DRAFT_COLUMNS} FROM d`,
      [draft.id, owner.projectId, owner.userId, draft.message, draft.branch, draft.ttlMs / 1000],
    );
    return toDraft(rows[0]);
  }

  /** The owner's live draft; `lock` holds its row until the transaction ends (staging and committing exclude each other). */
  async find(q: Queryable, owner: DraftOwner, draftId: string, lock = false): Promise<DraftRow | undefined> {
    const { rows } = await q.query<StoredDraft>(
      `SELECT ${DRAFT_COLUMNS} FROM drafts d
       WHERE d.id = $1 AND d.project_id = $2 AND d.user_id = $3 AND d.expires_at > now() ${lock ? 'FOR UPDATE' : ''}`,
      [draftId, owner.projectId, owner.userId],
    );
    return rows[0] && toDraft(rows[0]);
  }

  /**
   * Stages the entries (a file staged again replaces its row, so a retried call changes nothing),
   * bumps the draft's revision and adds the rows inserted to its file count; answers the distinct
   * files staged. The caller holds the draft's row lock.
   */
  async stage(tx: Queryable, draftId: string, entries: readonly StagedEntry[]): Promise<number> {
    const list = (pick: (e: StagedEntry) => string | number | null, separator?: string) => textList(entries.map(pick), separator);
    const { rows } = await tx.query<{ fileCount: number }>(
      `WITH staged AS (
         INSERT INTO draft_entries (draft_id, file_id, action, version, path, path_key, version_id, sha256, size, storage_key,
                                    uploader_id, uploader_name, version_created_at)
         SELECT $1, t.* FROM unnest(string_to_array($2, ',')::uuid[], string_to_array($3, ','), string_to_array($4, ',', '')::int[],
                                    string_to_array($5, E'\\x1f'), string_to_array($6, E'\\x1f'), string_to_array($7, ',', '')::uuid[],
                                    string_to_array($8, ',', ''), string_to_array($9, ',', '')::bigint[], string_to_array($10, E'\\x1f', ''),
                                    string_to_array($11, ',', '')::uuid[], string_to_array($12, E'\\x1f', ''),
                                    string_to_array($13, ',', '')::timestamptz[]) AS t
         ORDER BY 2
         ON CONFLICT (draft_id, file_id) DO UPDATE SET
           action = excluded.action, version = excluded.version, path = excluded.path, path_key = excluded.path_key,
           version_id = excluded.version_id, sha256 = excluded.sha256, size = excluded.size, storage_key = excluded.storage_key,
           uploader_id = excluded.uploader_id, uploader_name = excluded.uploader_name, version_created_at = excluded.version_created_at
         RETURNING (xmax = 0) AS inserted
       ),
       bumped AS (
         UPDATE drafts SET revision = revision + 1, file_count = file_count + (SELECT count(*) FROM staged WHERE inserted) WHERE id = $1
         RETURNING file_count
       )
       SELECT file_count AS "fileCount" FROM bumped`,
      [
        draftId,
        list((e) => e.fileId),
        list((e) => e.action),
        list((e) => e.version),
        list((e) => e.path, UNIT_SEPARATOR),
        list((e) => e.pathKey, UNIT_SEPARATOR),
        list((e) => e.versionId),
        list((e) => e.sha256),
        list((e) => e.size),
        list((e) => e.storageKey, UNIT_SEPARATOR),
        list((e) => e.uploaderId),
        list((e) => e.uploaderName, UNIT_SEPARATOR),
        list((e) => e.versionCreatedAt),
      ],
    );
    return rows[0].fileCount;
  }

  /** Up to `limit` staged file ids after `after`, in id order: a draft's files page by page. */
  async fileIdPage(q: Queryable, draftId: string, after: string | undefined, limit: number): Promise<string[]> {
    const { rows } = await q.query<{ fileId: string }>(
      `SELECT file_id AS "fileId" FROM draft_entries WHERE draft_id = $1 AND ($2::uuid IS NULL OR file_id > $2) ORDER BY file_id LIMIT $3`,
      [draftId, after ?? null, limit],
    );
    return rows.map((row) => row.fileId);
  }

  /** Up to `limit` staged versions (deletes have none) after file `after`, in file id order. */
  async versionPage(q: Queryable, draftId: string, after: string | undefined, limit: number): Promise<{ fileId: string; version: number }[]> {
    const { rows } = await q.query<{ fileId: string; version: number }>(
      `SELECT file_id AS "fileId", version FROM draft_entries
       WHERE draft_id = $1 AND version IS NOT NULL AND ($2::uuid IS NULL OR file_id > $2) ORDER BY file_id LIMIT $3`,
      [draftId, after ?? null, limit],
    );
    return rows;
  }

  /** Deletes the owner's live draft and its entries; answers whether there was one. */
  async remove(q: Queryable, owner: DraftOwner, draftId: string): Promise<boolean> {
    const { rowCount } = await q.query('DELETE FROM drafts WHERE id = $1 AND project_id = $2 AND user_id = $3 AND expires_at > now()', [
      draftId,
      owner.projectId,
      owner.userId,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async sweepExpired(q: Queryable): Promise<number> {
    const { rowCount } = await q.query('DELETE FROM drafts WHERE expires_at <= now()');
    return rowCount ?? 0;
  }
}
