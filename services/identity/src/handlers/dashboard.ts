import { sessions } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { DashboardService } from '../domain/dashboard-service.ts';

/** The dashboard's session-scoped operations; the service applies every authorization rule. */
export function serveDashboard(bus: Bus, service: DashboardService): void {
  bus.serve(sessions.myOrgs, ({ viewerId }) => service.myOrgs(viewerId));
  bus.serve(sessions.orgProjects, ({ viewerId, orgId, ...query }) => service.orgProjects(viewerId, orgId, query));
  bus.serve(sessions.createOrgProject, ({ viewerId, orgId, name, slug }) => service.createOrgProject(viewerId, orgId, name, slug));
  bus.serve(sessions.projectOverview, ({ viewerId, projectId }) => service.projectOverview(viewerId, projectId));
  bus.serve(sessions.setProjectWriteLimit, ({ viewerId, projectId, writeRateLimit }) => service.setProjectWriteLimit(viewerId, projectId, writeRateLimit));
  bus.serve(sessions.orgMembers, ({ viewerId, orgId, ...query }) => service.orgMembers(viewerId, orgId, query));
  bus.serve(sessions.setMemberRole, (request) => service.setMemberRole(request));
  bus.serve(sessions.removeMember, ({ viewerId, orgId, userId }) => service.removeMember(viewerId, orgId, userId));
  bus.serve(sessions.projectKeys, ({ viewerId, projectId, ...query }) => service.projectKeys(viewerId, projectId, query));
  bus.serve(sessions.createProjectKey, ({ viewerId, projectId, userId }) => service.createProjectKey(viewerId, projectId, userId));
  bus.serve(sessions.changeProjectKey, (request) => service.changeProjectKey(request));
}
