import type { ApiKey, Membership, NewApiKey, NewProject, NewUser, Organization, Project, Role, SignInLink, User } from './admin-types.ts';
import { ApiTransport, type ConnectionOptions } from './http.ts';
import type { OrgQuotaSettings, OrgUsage, Page, PageQuery, ProjectDeletion } from './types.ts';

export interface LodeAdminClientOptions extends Omit<ConnectionOptions, 'key' | 'deviceId'> {
  /** The server's `LODE_ADMIN_TOKEN` (embedded mode keeps the one it made in `<data dir>/admin-token`). */
  token: string;
}

type Signal = { signal?: AbortSignal };

const segment = encodeURIComponent;

/**
 * One method per route of the operators' API (`/admin/v1`, docs/api.md, Admin API), called with
 * the admin token and no device. Lists are keyset pages (`allPages` reads them whole). A call that
 * makes something new (an organization, a user, a key, a sign-in link) is not repeatable: after a
 * lost answer it is not sent again, since a second user of the same name or a key nobody saw
 * would be made; the others set a state and are retried as every call of the SDK is.
 */
export class LodeAdminClient {
  readonly transport: ApiTransport;

  constructor(options: LodeAdminClientOptions) {
    const { token, ...connection } = options;
    this.transport = new ApiTransport({ ...connection, key: token });
  }

  createOrg(org: { name: string; slug: string }, options: Signal = {}): Promise<Organization> {
    return this.#create('/admin/v1/orgs', org, options);
  }

  listOrgs(query: PageQuery = {}, options: Signal = {}): Promise<Page<Organization>> {
    return this.#list('/admin/v1/orgs', query, options);
  }

  createUser(user: NewUser, options: Signal = {}): Promise<User> {
    return this.#create('/admin/v1/users', user, options);
  }

  listUsers(query: PageQuery = {}, options: Signal = {}): Promise<Page<User>> {
    return this.#list('/admin/v1/users', query, options);
  }

  /** Sets the email single sign-on finds the user by, or clears it with null. */
  setUserEmail(userId: string, email: string | null, options: Signal = {}): Promise<User> {
    return this.transport.call('PATCH', `/admin/v1/users/${segment(userId)}`, { email }, options);
  }

  /** A dashboard sign-in link for the user: it works once, for 15 minutes. */
  createSignInLink(userId: string, options: Signal = {}): Promise<SignInLink> {
    return this.#create(`/admin/v1/users/${segment(userId)}/sign-in-links`, undefined, options);
  }

  /** Adds the user to the organization, or gives a member this role. */
  addMember(orgId: string, member: { userId: string; role: Role }, options: Signal = {}): Promise<Membership> {
    return this.transport.call('POST', `/admin/v1/orgs/${segment(orgId)}/members`, member, options);
  }

  listMembers(orgId: string, query: PageQuery = {}, options: Signal = {}): Promise<Page<Membership>> {
    return this.#list(`/admin/v1/orgs/${segment(orgId)}/members`, query, options);
  }

  createProject(orgId: string, project: NewProject, options: Signal = {}): Promise<Project> {
    return this.#create(`/admin/v1/orgs/${segment(orgId)}/projects`, project, options);
  }

  listProjects(orgId: string, query: PageQuery = {}, options: Signal = {}): Promise<Page<Project>> {
    return this.#list(`/admin/v1/orgs/${segment(orgId)}/projects`, query, options);
  }

  /** The organization's storage: its projects' usage added up, each project's, 90 days of history, its quota. */
  orgUsage(orgId: string, options: Signal = {}): Promise<OrgUsage> {
    return this.transport.call('GET', `/admin/v1/orgs/${segment(orgId)}/usage`, undefined, options);
  }

  /** Sets the operator's quota on the organization's projects' stored bytes together (the most its owners may set); null removes it. */
  setOrgQuota(orgId: string, bytes: number | null, options: Signal = {}): Promise<OrgQuotaSettings> {
    return this.transport.call('PUT', `/admin/v1/orgs/${segment(orgId)}/quota`, { bytes }, options);
  }

  /**
   * Deletes a project: its keys are refused at once, and it is purged with all its files after
   * `purgeAfter` unless brought back (undeleteProject). A project deleted already is 410 project_deleted.
   */
  deleteProject(projectId: string, options: Signal = {}): Promise<ProjectDeletion> {
    return this.transport.call('DELETE', `/admin/v1/projects/${segment(projectId)}`, undefined, options);
  }

  /** Brings a deleted project back as it was, until its purge begins (then 410 project_purged; 409 project_not_deleted when it is not deleted). */
  undeleteProject(projectId: string, options: Signal = {}): Promise<Project> {
    return this.transport.call('POST', `/admin/v1/projects/${segment(projectId)}/undelete`, undefined, options);
  }

  /** A project key for a member of the project's organization: the answer is the only place the key is shown. */
  createKey(projectId: string, userId: string, options: Signal = {}): Promise<NewApiKey> {
    return this.#create(`/admin/v1/projects/${segment(projectId)}/keys`, { userId }, options);
  }

  listKeys(projectId: string, query: PageQuery = {}, options: Signal = {}): Promise<Page<ApiKey>> {
    return this.#list(`/admin/v1/projects/${segment(projectId)}/keys`, query, options);
  }

  /** Revoking again keeps the first revocation's time. */
  revokeKey(keyId: string, options: Signal = {}): Promise<ApiKey> {
    return this.transport.call('DELETE', `/admin/v1/keys/${segment(keyId)}`, undefined, options);
  }

  /** Unbinds the key from its device: the next device that sends it is bound instead. */
  resetDevice(keyId: string, options: Signal = {}): Promise<ApiKey> {
    return this.transport.call('POST', `/admin/v1/keys/${segment(keyId)}/reset-device`, undefined, options);
  }

  #create<T>(path: string, body: unknown, options: Signal): Promise<T> {
    return this.transport.call('POST', path, body, { ...options, repeatable: false });
  }

  #list<T>(path: string, query: PageQuery, options: Signal): Promise<Page<T>> {
    return this.transport.call('GET', path, undefined, { ...options, query: { ...query } });
  }
}
