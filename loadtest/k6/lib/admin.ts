import http from 'k6/http';

// The operator API (docs/api.md, "Admin API"), used by setup and teardown only. A refusal throws:
// setup must not go on with half a fixture.

export type Role = 'owner' | 'admin' | 'member';

export interface WriteRateLimit {
  perSecond: number;
  burst: number;
}

export interface CreatedKey {
  id: string;
  key: string;
  userId: string;
}

export class AdminApi {
  readonly baseUrl: string;
  readonly token: string;

  constructor(baseUrl: string, token: string) {
    this.baseUrl = baseUrl;
    this.token = token;
  }

  private call<T>(method: string, route: string, path: string, body?: unknown): T {
    const res = http.request(method, `${this.baseUrl}${path}`, body === undefined ? null : JSON.stringify(body), {
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      tags: { flow: 'admin', step: 'admin', name: `${method} ${route}` },
    });
    if (res.status < 200 || res.status > 299) {
      const detail = typeof res.body === 'string' ? res.body.slice(0, 500) : res.error;
      throw new Error(`admin ${method} ${path} answered ${res.status}: ${detail}`);
    }
    return res.json() as unknown as T;
  }

  createOrg(name: string, slug: string): { id: string; slug: string } {
    return this.call('POST', '/admin/v1/orgs', '/admin/v1/orgs', { name, slug });
  }

  createUser(name: string): { id: string; name: string } {
    return this.call('POST', '/admin/v1/users', '/admin/v1/users', { name });
  }

  addMember(orgId: string, userId: string, role: Role): void {
    this.call('POST', '/admin/v1/orgs/{orgId}/members', `/admin/v1/orgs/${orgId}/members`, { userId, role });
  }

  createProject(orgId: string, name: string, slug: string, writeRateLimit: WriteRateLimit): { id: string; slug: string } {
    return this.call('POST', '/admin/v1/orgs/{orgId}/projects', `/admin/v1/orgs/${orgId}/projects`, { name, slug, writeRateLimit });
  }

  createKey(projectId: string, userId: string): CreatedKey {
    const created = this.call<{ id: string; key: string; userId: string }>(
      'POST',
      '/admin/v1/projects/{projectId}/keys',
      `/admin/v1/projects/${projectId}/keys`,
      { userId },
    );
    return { id: created.id, key: created.key, userId: created.userId };
  }

  revokeKey(keyId: string): void {
    this.call('DELETE', '/admin/v1/keys/{keyId}', `/admin/v1/keys/${keyId}`);
  }
}
