import type { retention } from '@lode/contracts';
import { isoTime, type Queryable } from '@lode/db';
import type { PlannedVersion } from '../domain/obliterate-plan.ts';

export interface PolicyRow {
  rules: retention.RetentionRule[];
  updatedAt: string;
  updatedBy: string;
  updatedByName: string;
  /** When the rules were last applied (a confirmed run, or a periodic run that finished); not the job's claim. */
  lastRunAt: string | null;
}

export interface BatchFile {
  id: string;
  path: string;
  pathKey: string;
}

/** A live version past the newest ones its file's policy keeps; `rank` 1 is the file's newest live version. */
export interface CandidateVersion extends PlannedVersion {
  fileId: string;
  rank: number;
}

const POLICY = `rules, ${isoTime('updated_at')} AS "updatedAt", updated_by AS "updatedBy", updated_by_name AS "updatedByName", ${isoTime('last_applied_at')} AS "lastRunAt"`;

/** SQL for retention: the projects' rules, the files in keyset order, the versions past what the rules keep. */
export class RetentionRepository {
  async policy(q: Queryable, projectId: string): Promise<PolicyRow | undefined> {
    const { rows } = await q.query<PolicyRow>(`SELECT ${POLICY} FROM retention_policies WHERE project_id = $1`, [projectId]);
    return rows[0];
  }

  /**
   * Replaces the project's rules. The periodic job first applies them an interval later (the
   * claim counts from now): time for a dry run to show what they remove.
   */
  async setPolicy(q: Queryable, projectId: string, rules: readonly retention.RetentionRule[], by: { userId: string; userName: string }): Promise<PolicyRow> {
    const { rows } = await q.query<PolicyRow>(
      `INSERT INTO retention_policies (project_id, rules, updated_by, updated_by_name, last_run_at) VALUES ($1, $2::jsonb, $3, $4, now())
       ON CONFLICT (project_id) DO UPDATE SET rules = EXCLUDED.rules, updated_at = now(), updated_by = EXCLUDED.updated_by,
         updated_by_name = EXCLUDED.updated_by_name, last_run_at = now()
       RETURNING ${POLICY}`,
      [projectId, JSON.stringify(rules), by.userId, by.userName],
    );
    return rows[0];
  }

  /** Records that the project's rules were applied at `appliedAt` (an ISO instant). */
  async markApplied(q: Queryable, projectId: string, appliedAt: string): Promise<void> {
    await q.query('UPDATE retention_policies SET last_applied_at = $2 WHERE project_id = $1', [projectId, appliedAt]);
  }

  /**
   * Claims one project with rules whose last claim (`last_run_at`, the job's schedule only) is older
   * than `intervalMs` (or never made), marking it claimed now: replicas racing for it take different
   * projects (SKIP LOCKED), and a claimed project waits a whole interval before it is claimed again. Only projects last claimed
   * before `passStartedAt`: a pass claims each project once, whatever the interval.
   */
  async claimDue(q: Queryable, intervalMs: number, passStartedAt: Date): Promise<{ projectId: string; rules: retention.RetentionRule[] } | undefined> {
    const { rows } = await q.query<{ projectId: string; rules: retention.RetentionRule[] }>(
      `UPDATE retention_policies SET last_run_at = now()
       WHERE project_id = (
         SELECT project_id FROM retention_policies
         WHERE jsonb_array_length(rules) > 0
           AND (last_run_at IS NULL OR (last_run_at < now() - make_interval(secs => $1::double precision / 1000) AND last_run_at < $2))
         ORDER BY last_run_at NULLS FIRST LIMIT 1 FOR UPDATE SKIP LOCKED
       )
       RETURNING project_id AS "projectId", rules`,
      [intervalMs, passStartedAt],
    );
    return rows[0];
  }

  /** The project's next files in path-key order after `afterKey`, up to `throughKey` when given: the unique (project, path key) index. */
  async fileBatch(q: Queryable, projectId: string, afterKey: string, throughKey: string | null, limit: number): Promise<BatchFile[]> {
    const { rows } = await q.query<BatchFile>(
      `SELECT id, path, path_key AS "pathKey" FROM files
       WHERE project_id = $1 AND path_key > $2 AND ($3::text IS NULL OR path_key <= $3)
       ORDER BY path_key LIMIT $4`,
      [projectId, afterKey, throughKey, limit],
    );
    return rows;
  }

  /**
   * Each file's live versions past its newest `keepLast`, in the files' order, newest first: per file, a walk down the
   * (file, version) index from the top, skipping what is kept, never a scan of the project's versions.
   */
  async candidates(q: Queryable, projectId: string, files: readonly { id: string; keepLast: number }[]): Promise<CandidateVersion[]> {
    if (files.length === 0) return [];
    const { rows } = await q.query<CandidateVersion>(
      `SELECT f.file_id AS "fileId", v.id, v.version, v.size, v.sha256, v."storageKey", v."createdAt", v.n::int AS rank
       FROM unnest($2::uuid[], $3::int[]) WITH ORDINALITY AS f(file_id, keep_last, n)
       CROSS JOIN LATERAL (
         SELECT id, version, size, sha256, storage_key AS "storageKey", ${isoTime('created_at')} AS "createdAt", row_number() OVER (ORDER BY version DESC) AS n
         FROM versions WHERE file_id = f.file_id AND project_id = $1 AND purged_at IS NULL
         ORDER BY version DESC OFFSET f.keep_last
       ) v
       ORDER BY f.n, v.version DESC`,
      [projectId, files.map((f) => f.id), files.map((f) => f.keepLast)],
    );
    return rows;
  }
}
