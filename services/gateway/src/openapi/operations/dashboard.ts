import { sessions } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';
import { boundGroup } from '../bound-operations.ts';

const bound = boundGroup(
  'Dashboard',
  "The web dashboard's own routes, for a signed-in person: their organizations, projects, members, invitations, keys and settings.",
);

/** Writes send the session's CSRF token (auth/sessions.ts); the identity service decides what each person may do. */
export const dashboardOperations: OperationGroup = {
  ...bound,
  operations: [
    ...bound.operations,
    {
      method: 'get',
      path: '/api/v1/projects/:projectId/overview',
      summary: 'A project, its organization, my role and the write limits in force',
      description:
        '`defaultWriteRateLimit` is what a project without a write rate limit of its own (`project.writeRateLimit` null) gets; `maxWriteRateLimit` is the most its owners and admins may set.',
      auth: 'session',
      reply: sessions.projectOverviewPage,
    },
  ],
};
