import type { Queryable } from '@lode/db';
import type { Progress } from '../domain/part-plan.ts';

/** How far each project's commit.created events are applied (table `progress`). */
export class ProgressRepository {
  /**
   * The project's progress, its row locked until the transaction ends: replicas sharing the
   * consumer, or a redelivery racing the original, apply one event of a project at a time.
   */
  async lock(tx: Queryable, projectId: string): Promise<Progress> {
    await tx.query('INSERT INTO progress (project_id) VALUES ($1) ON CONFLICT DO NOTHING', [projectId]);
    const { rows } = await tx.query<Progress>(
      `SELECT applied_seq AS "appliedSeq", pending_seq AS "pendingSeq", pending_part AS "pendingPart"
       FROM progress WHERE project_id = $1 FOR UPDATE`,
      [projectId],
    );
    return rows[0];
  }

  async markStaged(tx: Queryable, projectId: string, seq: number, part: number): Promise<void> {
    await tx.query('UPDATE progress SET pending_seq = $2, pending_part = $3 WHERE project_id = $1', [projectId, seq, part]);
  }

  async markApplied(tx: Queryable, projectId: string, seq: number): Promise<void> {
    await tx.query('UPDATE progress SET applied_seq = $2, pending_seq = NULL, pending_part = 0 WHERE project_id = $1', [projectId, seq]);
  }

  async appliedSeq(q: Queryable, projectId: string): Promise<number> {
    const { rows } = await q.query<{ applied_seq: number }>('SELECT applied_seq FROM progress WHERE project_id = $1', [projectId]);
    return rows[0]?.applied_seq ?? 0;
  }
}
