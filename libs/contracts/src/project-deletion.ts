import { z } from 'zod';
import { defineContract } from './contract.ts';
import { actorSchema, isoTimestamp, uuid } from './common.ts';
import { PROJECT_PATH } from './commit.ts';
import { defineEvent, type EventOf } from './event.ts';
import { adminRoute, projectSchema } from './identity.ts';
import { dashboardRoute } from './sessions.ts';

/**
 * Deleting a project: its org's owners (or an operator) delete it, it stays whole but hidden and
 * inert until `purgeAfter` (the operator's undo window), during which it can be brought back; then
 * every service deletes its rows and the upload service its objects (docs/api.md, Deleting a project).
 */

const ADMIN_PROJECT_PATH = '/admin/v1/projects/:projectId';

/** A deleted project, and when it will be purged: from then on nothing can bring it back. */
export const deletionSchema = z.object({
  projectId: uuid,
  orgId: uuid,
  name: z.string(),
  deletedAt: isoTimestamp,
  purgeAfter: isoTimestamp,
});
export type Deletion = z.infer<typeof deletionSchema>;

/**
 * The org's owners delete the project, with one of their keys or from the dashboard (admins and
 * members: 403). Its keys are refused at once (410 project_deleted) on this gateway, on the others
 * once their key cache expires.
 */
export const deleteProject = defineContract('identity', 'delete_project', z.object({ actor: actorSchema }), deletionSchema, {
  method: 'delete',
  path: PROJECT_PATH,
  tag: 'Projects',
  summary: 'Delete the project (owners): purged after the undo window',
  auth: 'key',
  errors: [403],
  forgetsProject: true,
});

/** Operators delete any project; a project already deleted is 410 project_deleted. */
export const adminDeleteProject = defineContract('identity', 'admin_delete_project', z.object({ projectId: uuid }), deletionSchema, {
  ...adminRoute,
  method: 'delete',
  path: ADMIN_PROJECT_PATH,
  summary: 'Delete a project: purged after the undo window',
  errors: [410],
  forgetsProject: true,
});

/**
 * The org's owners bring a deleted project back during the undo window, from the dashboard: its keys
 * work again. A project that is not deleted is 409 project_not_deleted; a purged one 410 project_purged.
 */
export const undeleteProject = defineContract('identity', 'undelete_project', z.object({ viewerId: uuid, projectId: uuid }), projectSchema, {
  ...dashboardRoute,
  method: 'post',
  path: `${PROJECT_PATH}/undelete`,
  summary: 'Bring a deleted project back (owners, during the undo window)',
  errors: [403, 409, 410],
  forgetsProject: true,
});

export const adminUndeleteProject = defineContract('identity', 'admin_undelete_project', z.object({ projectId: uuid }), projectSchema, {
  ...adminRoute,
  method: 'post',
  path: `${ADMIN_PROJECT_PATH}/undelete`,
  summary: 'Bring a deleted project back (during the undo window)',
  errors: [409, 410],
  forgetsProject: true,
});

/**
 * The project's undo window has passed: every service that holds rows of it deletes them, and the
 * upload service its objects. Handled at least once: each consumer's purge is idempotent.
 */
export const projectPurged = defineEvent('project.purged', z.object({ projectId: uuid, orgId: uuid, purgedAt: isoTimestamp }));
export type ProjectPurged = EventOf<typeof projectPurged>;
