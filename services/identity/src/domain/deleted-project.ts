import { errors, type AppError } from '@lode/errors';
import type { ProjectRow } from '../repo/rows.ts';

/**
 * What a deleted project answers whatever is asked of it: project_deleted with when it goes for good
 * while it can still be brought back, project_purged with when it went once nothing can. Undefined
 * for a live project.
 */
export function deletedProjectRefusal(project: Pick<ProjectRow, 'purge_after' | 'purged_at'>): AppError | undefined {
  if (project.purged_at) return errors.projectPurged(project.purged_at.toISOString());
  if (project.purge_after) return errors.projectDeleted(project.purge_after.toISOString());
  return undefined;
}
