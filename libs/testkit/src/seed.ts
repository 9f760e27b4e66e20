import { randomBytes } from 'node:crypto';
import type { Role } from '@lode/contracts';
import { ApiClient } from './client.ts';

export interface SeededProject {
  orgId: string;
  projectId: string;
  userId: string;
  keyId: string;
  key: string;
  /** An API client for this key, bound to its own device id. */
  api: ApiClient;
  deviceId: string;
}

/** Creates org, user, membership, project and key through the admin API, as an operator would. */
export class Seeder {
  readonly admin: ApiClient;
  readonly baseUrl: string;

  constructor(baseUrl: string, adminToken: string) {
    this.baseUrl = baseUrl;
    this.admin = new ApiClient(baseUrl, { authorization: `Bearer ${adminToken}` });
  }

  async project(options: { role?: Role; writeRateLimit?: { perSecond: number; burst: number } } = {}): Promise<SeededProject> {
    const tag = randomBytes(4).toString('hex');
    const org = await this.#created(await this.admin.post('/admin/v1/orgs', { name: `Org ${tag}`, slug: `org-${tag}` }));
    const project = await this.#created(
      await this.admin.post(`/admin/v1/orgs/${org.id}/projects`, { name: `Project ${tag}`, slug: `game-${tag}`, writeRateLimit: options.writeRateLimit }),
    );
    return this.member(org.id, project.id, options.role ?? 'owner');
  }

  /** Another user in the same org and project, with their own key. */
  async member(orgId: string, projectId: string, role: Role, name = `User ${randomBytes(3).toString('hex')}`): Promise<SeededProject> {
    const user = await this.#created(await this.admin.post('/admin/v1/users', { name }));
    await this.#created(await this.admin.post(`/admin/v1/orgs/${orgId}/members`, { userId: user.id, role }));
    const key = await this.#created(await this.admin.post(`/admin/v1/projects/${projectId}/keys`, { userId: user.id }));
    const deviceId = `device-${randomBytes(4).toString('hex')}`;
    const api = new ApiClient(this.baseUrl, { authorization: `Bearer ${key.key}`, 'x-device-id': deviceId });
    return { orgId, projectId, userId: user.id, keyId: key.id, key: key.key, api, deviceId };
  }

  async #created(response: { status: number; body: any }): Promise<any> {
    if (response.status !== 201) throw new Error(`admin call failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  }
}
