import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import type { Database } from '@lode/db';
import { identity } from '@lode/contracts';
import type { ApiKeysRepository } from '../repo/api-keys-repo.ts';
import type { KeyIdentitiesRepository } from '../repo/key-identities-repo.ts';
import { createdAtPosition } from '../repo/keyset.ts';
import type { MembershipsRepository } from '../repo/memberships-repo.ts';
import type { ProjectsRepository } from '../repo/projects-repo.ts';
import { generateApiKey, keyHint } from './api-key.ts';
import { deletedProjectRefusal } from './deleted-project.ts';
import type { Pager, PageQuery } from './pages.ts';
import { view } from './views.ts';

/** API keys: issued and administered by operators, resolved and bound to a device on the request path. */
export class KeysService {
  readonly #db: Database;
  readonly #keys: ApiKeysRepository;
  readonly #identities: KeyIdentitiesRepository;
  readonly #members: MembershipsRepository;
  readonly #projects: ProjectsRepository;
  readonly #pager: Pager;

  constructor(deps: {
    db: Database;
    keys: ApiKeysRepository;
    identities: KeyIdentitiesRepository;
    members: MembershipsRepository;
    projects: ProjectsRepository;
    pager: Pager;
  }) {
    this.#db = deps.db;
    this.#keys = deps.keys;
    this.#identities = deps.identities;
    this.#members = deps.members;
    this.#projects = deps.projects;
    this.#pager = deps.pager;
  }

  async resolve(keyHash: string): Promise<identity.KeyIdentity | null> {
    const found = await this.#identities.findByHash(this.#db, keyHash);
    if (found && !found.revoked) await this.#identities.touchLastUsed(this.#db, found.keyId);
    return found ?? null;
  }

  bindDevice(keyId: string, deviceId: string): Promise<string | null> {
    return this.#identities.bindDevice(this.#db, keyId, deviceId);
  }

  /** The key itself is returned here and never again: only its hash is stored. */
  async create(projectId: string, userId: string) {
    const project = await this.#projects.find(this.#db, projectId);
    if (!project) throw errors.notFound('Project');
    // A deleted project's keys are refused: a new one would be too.
    const refusal = deletedProjectRefusal(project);
    if (refusal) throw refusal;
    if (!(await this.#members.find(this.#db, project.org_id, userId))) {
      throw errors.validation("The user is not a member of the project's organization");
    }
    const key = generateApiKey();
    const row = await this.#keys.insert(this.#db, { id: randomUUID(), projectId, userId, keyHash: identity.apiKeyHash(key), hint: keyHint(key) });
    return { ...view.key(row), key };
  }

  async list(projectId: string, query: PageQuery) {
    if (!(await this.#projects.find(this.#db, projectId))) throw errors.notFound('Project');
    return this.#pager.page('keys', query, (after, limit) => this.#keys.listByProject(this.#db, projectId, after, limit), createdAtPosition, view.key);
  }

  async revoke(keyId: string) {
    const row = await this.#keys.revoke(this.#db, keyId);
    if (!row) throw errors.notFound('API key');
    return view.key(row);
  }

  async resetDevice(keyId: string) {
    const row = await this.#keys.resetDevice(this.#db, keyId);
    if (!row) throw errors.notFound('API key');
    return view.key(row);
  }
}
