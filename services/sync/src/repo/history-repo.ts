import type { Queryable } from '@lode/db';
import type { StagedRange } from './sync-rows.ts';

/** Every version committed per branch (table `history`); read by TreeRepository.compare. */
export class HistoryRepository {
  /** Records the versions the staged commit's entries in `range` set; a replayed commit adds nothing. */
  async recordStaged(tx: Queryable, projectId: string, branch: string, seq: number, range: StagedRange): Promise<void> {
    await tx.query(
      `INSERT INTO history (project_id, file_id, branch, version, sha256, commit_seq)
       SELECT project_id, file_id, $2, version, sha256, commit_seq FROM staged_entries
       WHERE project_id = $1 AND commit_seq = $3 AND file_id > $4 AND file_id <= $5 AND action <> 'delete'
       ON CONFLICT DO NOTHING`,
      [projectId, branch, seq, range.after, range.through],
    );
  }
}
