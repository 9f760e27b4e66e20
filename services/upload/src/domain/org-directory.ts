import { errors } from '@lode/errors';
import { identity, type orgStorage, type Role } from '@lode/contracts';
import { TtlCache } from './ttl-cache.ts';

/** A project of an org that still holds data, as the identity service lists it; `deletedAt` set while it waits for its purge. */
export interface OrgProject {
  id: string;
  name: string;
  slug: string;
  deletedAt: string | null;
  purgeAfter: string | null;
}

interface ProjectPage {
  data: readonly OrgProject[];
  nextCursor: string | null;
}

/**
 * How long an org's project list is trusted: an initiate under an org quota reads it, and asking the
 * identity service on every one would add a bus round trip to the busiest call. A project made in
 * the org meanwhile counts within this time (its own uploads count it at once: see `projectIdsOf`).
 */
const PROJECTS_CACHE_MS = 5000;
const PROJECTS_CACHE_MAX = 10_000;

/**
 * What the upload service knows of orgs, asked of the identity service, which owns them: the projects
 * an org holds that still hold data (an unknown org is its 404), and a dashboard user's role in one.
 * Nothing of it is stored here, so a project's org, or its deletion, is never out of step with
 * identity's. A purged project is not listed: its data is gone, so it neither shows in the org's
 * usage nor counts against the org's quota; a deleted one is, until its purge, as its storage is.
 */
export class OrgDirectory {
  readonly #storedProjects: (orgId: string, page: { cursor: string | undefined; limit: number }) => Promise<ProjectPage>;
  readonly #myOrgs: (viewerId: string) => Promise<readonly { id: string; role: Role }[]>;
  readonly #cache = new TtlCache<string, readonly OrgProject[]>({ ttlMs: PROJECTS_CACHE_MS, maxEntries: PROJECTS_CACHE_MAX });

  constructor(deps: {
    /** A page of the org's projects that still hold data (not purged); an unknown org is the identity service's 404. */
    storedProjects: (orgId: string, page: { cursor: string | undefined; limit: number }) => Promise<ProjectPage>;
    myOrgs: (viewerId: string) => Promise<readonly { id: string; role: Role }[]>;
  }) {
    this.#storedProjects = deps.storedProjects;
    this.#myOrgs = deps.myOrgs;
  }

  /** Refuses an org the identity service does not know (404), asking for one project of it at most. */
  async assertOrg(orgId: string): Promise<void> {
    await this.#storedProjects(orgId, { cursor: undefined, limit: 1 });
  }

  /** Every project of the org that still holds data, as of now. */
  async projects(orgId: string): Promise<readonly OrgProject[]> {
    const projects = await this.#allProjects(orgId);
    this.#cache.set(orgId, projects);
    return projects;
  }

  /** The org's project ids as lately read, with `projectId` (a project of the org) always among them. */
  async projectIdsOf(orgId: string, projectId?: string): Promise<string[]> {
    const projects = await this.#cache.read(orgId, (id) => this.#allProjects(id));
    const ids = projects.map((project) => project.id);
    return projectId === undefined || ids.includes(projectId) ? ids : [...ids, projectId];
  }

  /**
   * The caller's standing in the org: a key's role is its own (its org is the key's), a dashboard
   * user's is asked (an org they are not in is 404, as one that does not exist), the operator's is
   * the operator's.
   */
  async roleOf(orgId: string, caller: orgStorage.OrgCaller): Promise<Role | 'operator'> {
    if ('operator' in caller) return 'operator';
    if ('role' in caller) return caller.role;
    const membership = (await this.#myOrgs(caller.viewerId)).find((org) => org.id === orgId);
    if (!membership) throw errors.notFound('Organization');
    return membership.role;
  }

  /** Every project of the org, read page by page. */
  async #allProjects(orgId: string): Promise<OrgProject[]> {
    const projects: OrgProject[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#storedProjects(orgId, { cursor, limit: identity.MAX_ADMIN_PAGE_SIZE });
      projects.push(...page.data);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return projects;
  }
}
