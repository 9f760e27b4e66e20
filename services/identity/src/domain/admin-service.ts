import { randomUUID } from 'node:crypto';
import { AppError, errors } from '@lode/errors';
import type { Database } from '@lode/db';
import type { identity, ParsedRequestOf, Role } from '@lode/contracts';
import { createdAtPosition } from '../repo/keyset.ts';
import type { MembershipsRepository } from '../repo/memberships-repo.ts';
import type { OrgsRepository } from '../repo/orgs-repo.ts';
import type { ProjectListing, ProjectsRepository } from '../repo/projects-repo.ts';
import type { UsersRepository } from '../repo/users-repo.ts';
import type { Pager, PageQuery } from './pages.ts';
import { view } from './views.ts';

type NewProject = Omit<ParsedRequestOf<typeof identity.createProject>, 'orgId'>;

/** A unique violation on a slug constraint is the operator's 409, with the slug named. */
function slugConflict(slug: string) {
  return (error: unknown): never => {
    if (error instanceof AppError && error.code === 'conflict' && String(error.details?.constraint).includes('slug')) {
      throw errors.slugTaken(slug);
    }
    throw error;
  };
}

/** The admin API's organizations, users, memberships and projects (keys: keys-service.ts). */
export class AdminService {
  readonly #db: Database;
  readonly #orgs: OrgsRepository;
  readonly #users: UsersRepository;
  readonly #members: MembershipsRepository;
  readonly #projects: ProjectsRepository;
  readonly #pager: Pager;

  constructor(deps: {
    db: Database;
    orgs: OrgsRepository;
    users: UsersRepository;
    members: MembershipsRepository;
    projects: ProjectsRepository;
    pager: Pager;
  }) {
    this.#db = deps.db;
    this.#orgs = deps.orgs;
    this.#users = deps.users;
    this.#members = deps.members;
    this.#projects = deps.projects;
    this.#pager = deps.pager;
  }

  async createOrg(name: string, slug: string) {
    return view.org(await this.#orgs.insert(this.#db, { id: randomUUID(), name, slug }).catch(slugConflict(slug)));
  }

  listOrgs(query: PageQuery) {
    return this.#pager.page('orgs', query, (after, limit) => this.#orgs.list(this.#db, after, limit), createdAtPosition, view.org);
  }

  async createUser(name: string, avatarUrl: string | null, email: string | null) {
    return view.user(await this.#users.insert(this.#db, { id: randomUUID(), name, avatarUrl, email }));
  }

  async setUserEmail(userId: string, email: string | null) {
    const user = await this.#users.setEmail(this.#db, userId, email);
    if (!user) throw errors.notFound('User');
    return view.user(user);
  }

  listUsers(query: PageQuery) {
    return this.#pager.page('users', query, (after, limit) => this.#users.list(this.#db, after, limit), createdAtPosition, view.user);
  }

  /**
   * The operator adds any user to any org directly: they hold every user's data already. The
   * dashboard's owners and admins do not: a person joins their org by accepting an invitation.
   */
  async addMember(orgId: string, userId: string, role: Role) {
    await this.#requireOrg(orgId);
    if (!(await this.#users.find(this.#db, userId))) throw errors.notFound('User');
    return view.member(await this.#members.upsert(this.#db, orgId, userId, role));
  }

  async listMembers(orgId: string, query: PageQuery) {
    await this.#requireOrg(orgId);
    return this.#pager.page(
      'members',
      query,
      (after, limit) => this.#members.list(this.#db, orgId, after, limit),
      (m) => [m.user_id],
      view.member,
    );
  }

  async createProject(orgId: string, project: NewProject) {
    await this.#requireOrg(orgId);
    const row = await this.#projects
      .insert(this.#db, { id: randomUUID(), orgId, name: project.name, slug: project.slug, iconUrl: project.iconUrl, writeRateLimit: project.writeRateLimit })
      .catch(slugConflict(project.slug));
    return view.project(row);
  }

  /** Every project, deleted and purged ones too (their times say so): operators see what became of each. */
  listProjects(orgId: string, query: PageQuery) {
    return this.#projectsOf(orgId, query, 'all');
  }

  /**
   * The projects whose data still exists, for the storage counted against the org: a deleted project
   * keeps its versions and objects until it is purged, a purged one has none left.
   */
  listStoredProjects(orgId: string, query: PageQuery) {
    return this.#projectsOf(orgId, query, 'restorable');
  }

  async #projectsOf(orgId: string, query: PageQuery, listing: ProjectListing) {
    await this.#requireOrg(orgId);
    return this.#pager.page(
      'projects',
      query,
      (after, limit) => this.#projects.listByOrg(this.#db, orgId, after, limit, listing),
      createdAtPosition,
      view.project,
    );
  }

  async #requireOrg(orgId: string) {
    if (!(await this.#orgs.find(this.#db, orgId))) throw errors.notFound('Organization');
  }
}
