import { randomUUID } from 'node:crypto';
import { AppError, errors } from '@lode/errors';
import { CursorCodec, type Database } from '@lode/db';
import type { Role } from '@lode/contracts';
import { generateApiKey, hashApiKey } from '../auth/api-key.ts';
import { ApiKeysRepository } from './api-keys-repo.ts';
import { MembershipsRepository } from './memberships-repo.ts';
import { OrgsRepository } from './orgs-repo.ts';
import { ProjectsRepository } from './projects-repo.ts';
import { UsersRepository } from './users-repo.ts';
import type { CreateProjectBody } from './admin-schemas.ts';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** A unique violation on a slug constraint is the operator's 409, with the slug named. */
function slugConflict(slug: string) {
  return (error: unknown): never => {
    if (error instanceof AppError && error.code === 'conflict' && String(error.details?.constraint).includes('slug')) {
      throw errors.slugTaken(slug);
    }
    throw error;
  };
}

export class AdminService {
  readonly orgs: OrgsRepository;
  readonly users: UsersRepository;
  readonly members: MembershipsRepository;
  readonly projects: ProjectsRepository;
  readonly keys: ApiKeysRepository;
  readonly #cursors: CursorCodec;

  constructor(db: Database, cursorSecret: string) {
    this.orgs = new OrgsRepository(db);
    this.users = new UsersRepository(db);
    this.members = new MembershipsRepository(db);
    this.projects = new ProjectsRepository(db);
    this.keys = new ApiKeysRepository(db);
    this.#cursors = new CursorCodec(cursorSecret);
  }

  createOrg(name: string, slug: string) {
    return this.orgs.insert({ id: randomUUID(), name, slug }).catch(slugConflict(slug));
  }

  createUser(name: string, avatarUrl: string | null) {
    return this.users.insert({ id: randomUUID(), name, avatarUrl });
  }

  async addMember(orgId: string, userId: string, role: Role) {
    await this.requireOrg(orgId);
    if (!(await this.users.find(userId))) throw errors.notFound('User');
    return this.members.upsert(orgId, userId, role);
  }

  async createProject(orgId: string, body: CreateProjectBody) {
    await this.requireOrg(orgId);
    return this.projects
      .insert({ id: randomUUID(), orgId, name: body.name, slug: body.slug, iconUrl: body.iconUrl ?? null, writeRateLimit: body.writeRateLimit ?? null })
      .catch(slugConflict(body.slug));
  }

  /** The key itself is returned here and never again: only its hash is stored. */
  async createKey(projectId: string, userId: string) {
    const project = await this.projects.find(projectId);
    if (!project) throw errors.notFound('Project');
    if (!(await this.members.find(project.org_id, userId))) {
      throw errors.validation("The user is not a member of the project's organization");
    }
    const key = generateApiKey();
    const row = await this.keys.insert({ id: randomUUID(), projectId, userId, keyHash: hashApiKey(key), hint: key.slice(-4) });
    return { key, row };
  }

  async revokeKey(keyId: string) {
    const row = await this.keys.revoke(keyId);
    if (!row) throw errors.notFound('API key');
    return row;
  }

  async resetDevice(keyId: string) {
    const row = await this.keys.resetDevice(keyId);
    if (!row) throw errors.notFound('API key');
    return row;
  }

  async requireProject(projectId: string) {
    const project = await this.projects.find(projectId);
    if (!project) throw errors.notFound('Project');
    return project;
  }

  async requireOrg(orgId: string) {
    const org = await this.orgs.find(orgId);
    if (!org) throw errors.notFound('Organization');
    return org;
  }

  /** Runs a keyset list: fetch one row more than asked to know whether another page exists. */
  async page<R, V>(
    list: string,
    query: { cursor?: string | undefined; limit: number },
    fetch: (after: string[] | undefined, limit: number) => Promise<R[]>,
    positionOf: (row: R) => string[],
    toView: (row: R) => V,
  ): Promise<Page<V>> {
    // A cursor names its list, so one list's cursor can never be replayed against another's keys.
    const decoded = query.cursor ? this.#cursors.decode(query.cursor).map(String) : undefined;
    if (decoded && decoded[0] !== list) throw errors.validation('Invalid cursor');
    const after = decoded?.slice(1);
    const rows = await fetch(after, query.limit + 1);
    const data = rows.slice(0, query.limit);
    const last = data.at(-1);
    return {
      data: data.map(toView),
      nextCursor: rows.length > query.limit && last ? this.#cursors.encode([list, ...positionOf(last)]) : null,
    };
  }
}
