import { errors } from '@lode/errors';
import type { Database, Queryable } from '@lode/db';
import { managesOrg, type identity, type ParsedRequestOf, type Role, type sessions } from '@lode/contracts';
import type { ApiKeysRepository, ApiKeyWithUserRow } from '../repo/api-keys-repo.ts';
import { createdAtPosition } from '../repo/keyset.ts';
import type { MembershipsRepository, MemberWithUserRow } from '../repo/memberships-repo.ts';
import type { OrgsRepository } from '../repo/orgs-repo.ts';
import type { ProjectsRepository } from '../repo/projects-repo.ts';
import type { UsersRepository } from '../repo/users-repo.ts';
import type { AdminService } from './admin-service.ts';
import type { KeysService } from './keys-service.ts';
import { mayHandleKey, membershipChangeRefusal, writeLimitOverMaximum } from './dashboard-rules.ts';
import { deletedProjectRefusal } from './deleted-project.ts';
import type { Pager, PageQuery } from './pages.ts';
import { viewerRoleIn } from './viewer-role.ts';
import { view } from './views.ts';

const memberView = (r: MemberWithUserRow) => ({ userId: r.user_id, name: r.name, email: r.email, role: r.role, createdAt: r.created_at.toISOString() });
const keyView = (r: ApiKeyWithUserRow) => ({ ...view.key(r), userName: r.user_name, lastUsedAt: r.last_used_at?.toISOString() ?? null });

/**
 * The dashboard's operations for a signed-in person. Every call starts from the viewer's
 * membership: an org or project they do not belong to is 404 (its existence is not told), a change
 * their role does not allow is 403. The admin operations underneath are the operators' own.
 */
export class DashboardService {
  readonly #db: Database;
  readonly #orgs: OrgsRepository;
  readonly #users: UsersRepository;
  readonly #members: MembershipsRepository;
  readonly #projects: ProjectsRepository;
  readonly #keys: ApiKeysRepository;
  readonly #admin: AdminService;
  readonly #keyService: KeysService;
  readonly #pager: Pager;
  readonly #maxWriteLimit: identity.WriteRateLimit;

  constructor(deps: {
    db: Database;
    orgs: OrgsRepository;
    users: UsersRepository;
    members: MembershipsRepository;
    projects: ProjectsRepository;
    keys: ApiKeysRepository;
    admin: AdminService;
    keyService: KeysService;
    pager: Pager;
    /** The operator's write limit: the most an owner or admin may give their project. */
    maxWriteLimit: identity.WriteRateLimit;
  }) {
    this.#db = deps.db;
    this.#orgs = deps.orgs;
    this.#users = deps.users;
    this.#members = deps.members;
    this.#projects = deps.projects;
    this.#keys = deps.keys;
    this.#admin = deps.admin;
    this.#keyService = deps.keyService;
    this.#pager = deps.pager;
    this.#maxWriteLimit = deps.maxWriteLimit;
  }

  async myOrgs(viewerId: string) {
    return { data: (await this.#members.orgsOf(this.#db, viewerId)).map((r) => ({ ...view.org(r), role: r.role })) };
  }

  /** Deleted projects are hidden, except from the owners, who alone can bring them back until they are purged. */
  async orgProjects(viewerId: string, orgId: string, query: PageQuery) {
    const listing = (await this.#roleIn(orgId, viewerId)) === 'owner' ? 'restorable' : 'live';
    return this.#pager.page(
      'projects',
      query,
      (after, limit) => this.#projects.listByOrg(this.#db, orgId, after, limit, listing),
      createdAtPosition,
      view.project,
    );
  }

  async createOrgProject(viewerId: string, orgId: string, name: string, slug: string) {
    this.#requireManager(await this.#roleIn(orgId, viewerId), 'create projects');
    return this.#admin.createProject(orgId, { name, slug, iconUrl: null, writeRateLimit: null });
  }

  async projectOverview(viewerId: string, projectId: string) {
    const { project, role } = await this.#projectAndRole(projectId, viewerId);
    const org = await this.#orgs.find(this.#db, project.org_id);
    if (!org) throw errors.notFound('Project');
    return { project: view.project(project), org: view.org(org), role, maxWriteRateLimit: this.#maxWriteLimit };
  }

  async setProjectWriteLimit(viewerId: string, projectId: string, limit: identity.WriteRateLimit | null) {
    const { role } = await this.#projectAndRole(projectId, viewerId);
    this.#requireManager(role, 'change project settings');
    const refusal = limit && writeLimitOverMaximum(limit, this.#maxWriteLimit);
    if (refusal) throw refusal;
    const row = await this.#projects.setWriteLimit(this.#db, projectId, limit);
    if (!row) throw errors.notFound('Project');
    return view.project(row);
  }

  async orgMembers(viewerId: string, orgId: string, query: PageQuery) {
    await this.#roleIn(orgId, viewerId);
    return this.#pager.page(
      'members',
      query,
      (after, limit) => this.#members.listWithUsers(this.#db, orgId, after, limit),
      (m) => [m.user_id],
      memberView,
    );
  }

  /**
   * Changes the role of someone already in the org. Anyone else joins only by accepting an
   * invitation, and is refused alike whether or not they are a user: the member is looked up among
   * this org's members only, never among all users.
   */
  async setMemberRole(request: ParsedRequestOf<typeof sessions.setMemberRole>) {
    const { viewerId, orgId, member, role } = request;
    const viewerRole = await this.#roleIn(orgId, viewerId);
    return this.#db.transaction(async (tx) => {
      const current = await this.#checkMembershipChange(tx, orgId, member, viewerRole, role);
      // An update, not an upsert: someone removed meanwhile is refused too, never added back.
      const row = current ? await this.#members.setRole(tx, orgId, current.user_id, role) : undefined;
      if (!current || !row) throw errors.invitationRequired();
      return memberView({ ...row, name: current.name, email: current.email });
    });
  }

  async removeMember(viewerId: string, orgId: string, userId: string) {
    const viewerRole = await this.#roleIn(orgId, viewerId);
    const removed = await this.#db.transaction(async (tx) => {
      await this.#checkMembershipChange(tx, orgId, { userId }, viewerRole, null);
      return this.#members.remove(tx, orgId, userId);
    });
    return { removed };
  }

  async projectKeys(viewerId: string, projectId: string, query: PageQuery) {
    const { role } = await this.#projectAndRole(projectId, viewerId);
    const onlyUser = managesOrg(role) ? null : viewerId;
    return this.#pager.page(
      'dashboard-keys',
      query,
      (after, limit) => this.#keys.listWithUsers(this.#db, projectId, onlyUser, after, limit),
      createdAtPosition,
      keyView,
    );
  }

  async createProjectKey(viewerId: string, projectId: string, forUserId: string | null) {
    const { role } = await this.#projectAndRole(projectId, viewerId);
    const userId = forUserId ?? viewerId;
    if (!mayHandleKey({ userId: viewerId, role }, userId)) throw errors.forbidden('Only owners and admins make keys for other members');
    const created = await this.#keyService.create(projectId, userId);
    const user = await this.#users.find(this.#db, userId);
    return { ...created, userName: user?.name ?? '', lastUsedAt: null };
  }

  async changeProjectKey(request: ParsedRequestOf<typeof sessions.changeProjectKey>) {
    const { viewerId, projectId, keyId, change } = request;
    const { role } = await this.#projectAndRole(projectId, viewerId);
    const key = await this.#keys.find(this.#db, keyId);
    // Another project's key, or one the viewer may not even see, is unknown here.
    if (!key || key.project_id !== projectId || !mayHandleKey({ userId: viewerId, role }, key.user_id)) throw errors.notFound('API key');
    const changed = change === 'revoke' ? await this.#keys.revoke(this.#db, keyId) : await this.#keys.resetDevice(this.#db, keyId);
    const user = await this.#users.find(this.#db, key.user_id);
    if (!changed || !user) throw errors.notFound('API key');
    return keyView({ ...changed, user_name: user.name });
  }

  /** Locks the org's owners and applies the rules to a change of this member; answers the member, undefined when not one. */
  async #checkMembershipChange(tx: Queryable, orgId: string, who: { userId: string } | { email: string }, viewerRole: Role, nextRole: Role | null) {
    const owners = await this.#members.lockOwners(tx, orgId);
    const current = await this.#members.findWithUser(tx, orgId, who);
    if (!current && nextRole === null) throw errors.notFound('Member');
    const refusal = membershipChangeRefusal({ viewerRole, currentRole: current?.role ?? null, nextRole, owners });
    if (refusal) throw errors.forbidden(refusal);
    return current;
  }

  #roleIn(orgId: string, viewerId: string): Promise<Role> {
    return viewerRoleIn(this.#members, this.#db, orgId, viewerId);
  }

  async #projectAndRole(projectId: string, viewerId: string) {
    const project = await this.#projects.find(this.#db, projectId);
    const membership = project && (await this.#members.find(this.#db, project.org_id, viewerId));
    if (!project || !membership) throw errors.notFound('Project');
    // Its members learn it was deleted (and when it goes for good); nothing else is done to it.
    const refusal = deletedProjectRefusal(project);
    if (refusal) throw refusal;
    return { project, role: membership.role };
  }

  #requireManager(role: Role, what: string) {
    if (!managesOrg(role)) throw errors.forbidden(`Only owners and admins ${what}`);
  }
}
