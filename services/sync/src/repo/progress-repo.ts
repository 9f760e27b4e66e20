import type { NamedStatement, Queryable } from '@lode/db';
import type { BranchProgress } from '../domain/branch-change-plan.ts';
import type { Progress } from '../domain/part-plan.ts';

export interface AppliedProgress extends BranchProgress {
  secondsSinceAdvanced: number | null;
}

// A project's progress row, read and moved at every event: prepared once per connection.
const ENSURE: NamedStatement = { name: 'sync.progress_ensure', text: 'INSERT INTO progress (project_id) VALUES ($1) ON CONFLICT DO NOTHING' };

const LOCK: NamedStatement = {
  name: 'sync.progress_lock',
  text: `SELECT applied_seq AS "appliedSeq", pending_seq AS "pendingSeq", pending_part AS "pendingPart", applied_changes AS "appliedChanges"
         FROM progress WHERE project_id = $1 FOR UPDATE`,
};

const MARK_STAGED: NamedStatement = { name: 'sync.progress_staged', text: 'UPDATE progress SET pending_seq = $2, pending_part = $3 WHERE project_id = $1' };

const MARK_APPLIED: NamedStatement = {
  name: 'sync.progress_applied',
  text: 'UPDATE progress SET applied_seq = $2, pending_seq = NULL, pending_part = 0, advanced_at = clock_timestamp() WHERE project_id = $1',
};

/** How far each project's commit.created and branch.changed events are applied (table `progress`). */
export class ProgressRepository {
  /**
   * The project's progress, its row locked until the transaction ends: replicas sharing the
   * consumer, or a redelivery racing the original, apply one event of a project at a time.
   */
  async lock(tx: Queryable, projectId: string): Promise<Progress> {
    await tx.query(ENSURE, [projectId]);
    const { rows } = await tx.query<Progress>(LOCK, [projectId]);
    return rows[0];
  }

  async markStaged(tx: Queryable, projectId: string, seq: number, part: number): Promise<void> {
    await tx.query(MARK_STAGED, [projectId, seq, part]);
  }

  /** The clock at the statement, not the transaction's start: a large commit's apply runs long. */
  async markApplied(tx: Queryable, projectId: string, seq: number): Promise<void> {
    await tx.query(MARK_APPLIED, [projectId, seq]);
  }

  /** The project's progress as a branch change needs it, its row locked until the transaction ends (as lock does). */
  async lockForBranchChange(tx: Queryable, projectId: string): Promise<BranchProgress> {
    await tx.query(ENSURE, [projectId]);
    const { rows } = await tx.query<BranchProgress>(
      'SELECT applied_seq AS "appliedSeq", applied_changes AS "appliedChanges" FROM progress WHERE project_id = $1 FOR UPDATE',
      [projectId],
    );
    return rows[0];
  }

  async markChangeApplied(tx: Queryable, projectId: string, change: number): Promise<void> {
    await tx.query('UPDATE progress SET applied_changes = $2, advanced_at = clock_timestamp() WHERE project_id = $1', [projectId, change]);
  }

  /**
   * How far the project is applied: its commits and its branch changes, and the seconds since the
   * read model last advanced for it (null before it has staged or applied anything of the project).
   */
  async applied(q: Queryable, projectId: string): Promise<AppliedProgress> {
    const { rows } = await q.query<AppliedProgress>(
      `SELECT applied_seq AS "appliedSeq", applied_changes AS "appliedChanges",
              greatest(0, extract(epoch FROM clock_timestamp() - advanced_at))::float8 AS "secondsSinceAdvanced"
       FROM progress WHERE project_id = $1`,
      [projectId],
    );
    return rows[0] ?? { appliedSeq: 0, appliedChanges: 0, secondsSinceAdvanced: null };
  }
}
