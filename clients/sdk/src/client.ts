import { randomUUID } from 'node:crypto';
import { followEvents, type FeedMessage, type FeedOptions } from './events.ts';
import { ApiTransport, type CallOptions, type ConnectionOptions } from './http.ts';
import type {
  Branch,
  ChangesPage,
  ChangesQuery,
  Commit,
  CommitCreated,
  CommitEntry,
  CommitFile,
  CommitRequest,
  ConfirmBody,
  ConfirmResult,
  DedupForm,
  DownloadRequestEntry,
  DownloadResult,
  Draft,
  FileVersion,
  FolderChild,
  Identity,
  InitiateFile,
  InitiateResult,
  Lock,
  LockQuery,
  LockResponse,
  MergeRequest,
  MultipartForm,
  ObliterateBody,
  ObliterateMode,
  ObliterateTarget,
  Obliteration,
  OrgQuotaSettings,
  OrgUsage,
  ProjectDeletion,
  Page,
  PageQuery,
  Plugin,
  PluginConfirm,
  PluginPublish,
  PluginUploadForm,
  PluginVersion,
  QuotaSettings,
  RetentionPlan,
  RetentionRule,
  RetentionSettings,
  RestoreResponse,
  SyncRequest,
  SyncResponse,
  TreeFile,
  UnlockResponse,
  UploadForm,
  Usage,
  Webhook,
  WebhookChanges,
  WebhookCreate,
  WebhookDelivery,
  WebhookWithSecret,
} from './types.ts';

export interface LodeClientOptions extends ConnectionOptions {
  /** The key's project; found with `validateKey()` when omitted. */
  projectId?: string;
}

type Signal = { signal?: AbortSignal };

/** One typed method per route of the client API (docs/api.md). */
export class LodeClient {
  readonly transport: ApiTransport;
  #projectId: string | undefined;

  constructor(options: LodeClientOptions) {
    this.transport = new ApiTransport(options);
    this.#projectId = options.projectId;
  }

  /** The key's project id, asking the server once if it was not given. */
  async projectId(options: Signal = {}): Promise<string> {
    this.#projectId ??= (await this.validateKey(options)).projectId;
    return this.#projectId;
  }

  validateKey(options: Signal = {}): Promise<Identity> {
    return this.transport.call('POST', '/api/v1/auth/validate-key', undefined, options);
  }

  async #project<T>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
    return this.transport.call(method, await this.projectPath(path, options), body, options);
  }

  /** The full path of a route of the key's project: `/commits` → `/api/v1/projects/{projectId}/commits`. */
  async projectPath(path: string, options: Signal = {}): Promise<string> {
    return `/api/v1/projects/${await this.projectId(options)}${path}`;
  }

  sync(request: SyncRequest, options: Signal = {}): Promise<SyncResponse> {
    return this.#project('POST', '/sync', request, options);
  }

  initiateUpload(file: InitiateFile, options: Signal = {}): Promise<UploadForm | MultipartForm | DedupForm> {
    return this.#project('POST', '/files/upload/initiate', file, options);
  }

  /**
   * One page of the branch's files changed after commit `since` (docs/api.md, Changes); a 410
   * `changes_expired` tells the caller to compare its whole workspace with sync instead.
   */
  changes(query: ChangesQuery, options: Signal = {}): Promise<ChangesPage> {
    return this.#project('GET', '/changes', undefined, { ...options, query: { ...query } });
  }

  async initiateBatch(files: InitiateFile[], options: Signal = {}): Promise<InitiateResult[]> {
    return (await this.#project<{ results: InitiateResult[] }>('POST', '/files/upload/initiate-batch', { files }, options)).results;
  }

  /** An open multipart upload: the parts the store holds, and fresh URLs for the others (after the first ones expired). */
  uploadParts(fileId: string, version: number, options: Signal = {}): Promise<MultipartForm> {
    return this.#project('GET', `/files/upload/${encodeURIComponent(fileId)}/${version}/parts`, undefined, options);
  }

  confirmUpload(body: ConfirmBody, options: Signal = {}): Promise<{ confirmed: true; version: number }> {
    return this.#project('POST', '/files/upload/confirm', body, options);
  }

  async confirmBatch(files: ConfirmBody[], options: Signal = {}): Promise<ConfirmResult[]> {
    return (await this.#project<{ results: ConfirmResult[] }>('POST', '/files/upload/confirm-batch', { files }, options)).results;
  }

  /** A commit always carries an idempotency key (a fresh one unless given), so a retry never commits twice. */
  createCommit(request: CommitRequest, options: Signal & { idempotencyKey?: string } = {}): Promise<CommitCreated> {
    return this.#project('POST', '/commits', request, { ...options, idempotencyKey: options.idempotencyKey ?? randomUUID() });
  }

  listCommits(query: PageQuery & { branch?: string } = {}, options: Signal = {}): Promise<Page<Commit>> {
    return this.#project('GET', '/commits', undefined, { ...options, query: { ...query } });
  }

  getCommit(commitId: string, options: Signal = {}): Promise<Commit> {
    return this.#project('GET', `/commits/${encodeURIComponent(commitId)}`, undefined, options);
  }

  listCommitFiles(commitId: string, query: PageQuery = {}, options: Signal = {}): Promise<Page<CommitFile>> {
    return this.#project('GET', `/commits/${encodeURIComponent(commitId)}/files`, undefined, { ...options, query: { ...query } });
  }

  listFiles(query: PageQuery & { branch?: string; prefix?: string } = {}, options: Signal = {}): Promise<Page<TreeFile>> {
    return this.#project('GET', '/files', undefined, { ...options, query: { ...query } });
  }

  /** One folder of a branch (the root when `prefix` is omitted): its subfolders with counts and sizes, then its files. */
  listFolder(query: PageQuery & { branch?: string; prefix?: string } = {}, options: Signal = {}): Promise<Page<FolderChild>> {
    return this.#project('GET', '/folders', undefined, { ...options, query: { ...query } });
  }

  listVersions(fileId: string, query: PageQuery = {}, options: Signal = {}): Promise<Page<FileVersion>> {
    return this.#project('GET', `/files/${encodeURIComponent(fileId)}/versions`, undefined, { ...options, query: { ...query } });
  }

  listBranches(query: PageQuery = {}, options: Signal = {}): Promise<Page<Branch>> {
    return this.#project('GET', '/branches', undefined, { ...options, query: { ...query } });
  }

  createBranch(name: string, from?: string, options: Signal = {}): Promise<Branch> {
    return this.#project('POST', '/branches', { name, from }, options);
  }

  deleteBranch(name: string, options: Signal = {}): Promise<{ name: string; deleted: true }> {
    return this.#project('DELETE', `/branches/${encodeURIComponent(name)}`, undefined, options);
  }

  mergeBranch(name: string, request: MergeRequest = {}, options: Signal = {}): Promise<CommitCreated & { kind: 'merge' }> {
    return this.#project('POST', `/branches/${encodeURIComponent(name)}/merge`, request, options);
  }

  async downloadUrls(files: DownloadRequestEntry[], branch?: string, options: Signal = {}): Promise<DownloadResult[]> {
    return (await this.#project<{ results: DownloadResult[] }>('POST', '/files/download-urls', { files, branch }, options)).results;
  }

  restore(files: { fileId: string; toVersion: number }[], options: Signal & { idempotencyKey?: string } = {}): Promise<RestoreResponse> {
    return this.#project('POST', '/restore', { files }, { ...options, idempotencyKey: options.idempotencyKey ?? randomUUID() });
  }

  listLocks(query: LockQuery = {}, options: Signal = {}): Promise<Page<Lock>> {
    return this.#project('GET', '/locks', undefined, { ...options, query: { ...query } });
  }

  lock(fileIds: string[], note?: string, options: Signal = {}): Promise<LockResponse> {
    return this.#project('POST', '/locks', { fileIds, note }, options);
  }

  unlock(fileIds: string[], force = false, options: Signal = {}): Promise<UnlockResponse> {
    return this.#project('DELETE', '/locks', { fileIds, force }, options);
  }

  createDraft(message: string, branch?: string, options: Signal = {}): Promise<Draft> {
    return this.#project('POST', '/drafts', { message, branch }, options);
  }

  getDraft(draftId: string, options: Signal = {}): Promise<Draft> {
    return this.#project('GET', `/drafts/${encodeURIComponent(draftId)}`, undefined, options);
  }

  addDraftFiles(draftId: string, fileVersions: CommitEntry[], options: Signal = {}): Promise<{ id: string; fileCount: number }> {
    return this.#project('POST', `/drafts/${encodeURIComponent(draftId)}/files`, { fileVersions }, options);
  }

  commitDraft(draftId: string, options: Signal & { idempotencyKey?: string } = {}): Promise<CommitCreated> {
    return this.#project('POST', `/drafts/${encodeURIComponent(draftId)}/commit`, undefined, {
      ...options,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
    });
  }

  deleteDraft(draftId: string, options: Signal = {}): Promise<{ id: string; deleted: true }> {
    return this.#project('DELETE', `/drafts/${encodeURIComponent(draftId)}`, undefined, options);
  }

  /** The organization's shared plugins, by name. */
  listPlugins(query: PageQuery = {}, options: Signal = {}): Promise<Page<Plugin>> {
    return this.#project('GET', '/plugins', undefined, { ...options, query: { ...query } });
  }

  /** A plugin's versions, newest first by semver precedence, each with a download URL. */
  listPluginVersions(name: string, query: PageQuery = {}, options: Signal = {}): Promise<Page<PluginVersion>> {
    return this.#project('GET', `/plugins/${encodeURIComponent(name)}/versions`, undefined, { ...options, query: { ...query } });
  }

  /** Step 1 of publishing (org owners and admins): the upload URL of the version's bytes. `publishPlugin` does all three steps. */
  initiatePluginVersion(name: string, body: PluginPublish, options: Signal = {}): Promise<PluginUploadForm> {
    return this.#project('POST', `/plugins/${encodeURIComponent(name)}/versions/initiate`, body, options);
  }

  /** Step 3: records the uploaded version, checked against its SHA-256; a repeated confirm answers the same version. */
  confirmPluginVersion(name: string, body: PluginConfirm, options: Signal = {}): Promise<PluginVersion> {
    return this.#project('POST', `/plugins/${encodeURIComponent(name)}/versions/confirm`, body, options);
  }

  /** Webhooks are managed with an org owner's or admin's key. The secret is answered only here and on rotation. */
  createWebhook(webhook: WebhookCreate, options: Signal = {}): Promise<WebhookWithSecret> {
    return this.#project('POST', '/webhooks', webhook, options);
  }

  async listWebhooks(options: Signal = {}): Promise<Webhook[]> {
    return (await this.#project<{ data: Webhook[] }>('GET', '/webhooks', undefined, options)).data;
  }

  getWebhook(webhookId: string, options: Signal = {}): Promise<Webhook> {
    return this.#project('GET', `/webhooks/${encodeURIComponent(webhookId)}`, undefined, options);
  }

  /** `secret` is in the answer only with `rotateSecret: true`. */
  updateWebhook(webhookId: string, changes: WebhookChanges, options: Signal = {}): Promise<Webhook & { secret?: string }> {
    return this.#project('PATCH', `/webhooks/${encodeURIComponent(webhookId)}`, changes, options);
  }

  deleteWebhook(webhookId: string, options: Signal = {}): Promise<{ deleted: true }> {
    return this.#project('DELETE', `/webhooks/${encodeURIComponent(webhookId)}`, undefined, options);
  }

  /** The webhook's delivery log, newest first. */
  listWebhookDeliveries(webhookId: string, query: PageQuery = {}, options: Signal = {}): Promise<Page<WebhookDelivery>> {
    return this.#project('GET', `/webhooks/${encodeURIComponent(webhookId)}/deliveries`, undefined, { ...options, query: { ...query } });
  }

  /** Sends it a `webhook.ping` event, delivered and logged like any other. */
  pingWebhook(webhookId: string, options: Signal = {}): Promise<{ eventId: string }> {
    return this.#project('POST', `/webhooks/${encodeURIComponent(webhookId)}/ping`, undefined, options);
  }

  /**
   * The project's storage: logical bytes (every live version) against stored bytes (distinct
   * objects), the quota, what the collector will free, 90 days of history. `prefix` adds the
   * breakdown of a folder or file, `byExtension` the largest extensions (within `prefix` when given).
   */
  usage(query: { prefix?: string; byExtension?: boolean } = {}, options: Signal = {}): Promise<Usage> {
    const params = { prefix: query.prefix, by: query.byExtension ? 'extension' : undefined };
    return this.#project('GET', '/usage', undefined, { ...options, query: params });
  }

  /**
   * Removes a file's versions for good (org owners and admins), in two steps: `{ dryRun: true }`
   * answers the plan and its `confirmToken`; the same target with `{ confirmToken }` runs it. A run
   * whose versions changed since its dry run, or whose token expired, is refused (409 conflict,
   * `reason` plan_changed or expired): dry-run again.
   */
  obliterate(target: ObliterateTarget, mode: ObliterateMode, options: Signal = {}): Promise<Obliteration> {
    const body: ObliterateBody = { ...target, ...mode };
    return this.#project('POST', '/obliterate', body, options);
  }

  /** Sets the project's own storage quota in bytes, at most the operator's (org owners and admins); null removes it. */
  setQuota(bytes: number | null, options: Signal = {}): Promise<QuotaSettings> {
    return this.#project('PUT', '/quota', { bytes }, options);
  }

  /** The project's retention rules (any member may read them). */
  retention(options: Signal = {}): Promise<RetentionSettings> {
    return this.#project('GET', '/retention', undefined, options);
  }

  /**
   * Replaces the project's retention rules (org owners and admins); `[]` removes them. A version
   * goes only when every rule matching its path lets it go; branch tips, versions a draft stages
   * and locked files stay. The periodic job first applies new rules an interval after they are set.
   */
  setRetention(rules: readonly RetentionRule[], options: Signal = {}): Promise<RetentionSettings> {
    return this.#project('PUT', '/retention', { rules }, options);
  }

  /**
   * Applies the retention rules now, in two steps (org owners and admins): `{ dryRun: true }`
   * answers what they remove and a `confirmToken`; `{ confirmToken }` removes exactly that, or is
   * refused (409 conflict, `reason` plan_changed or expired, `removedVersions` of the plan removed
   * before the run stopped): dry-run again.
   */
  applyRetention(mode: { dryRun: true } | { confirmToken: string }, options: Signal = {}): Promise<RetentionPlan> {
    return 'dryRun' in mode
      ? this.#project('POST', '/retention/dry-run', {}, options)
      : this.#project('POST', '/retention/run', { confirmToken: mode.confirmToken }, options);
  }

  /**
   * The storage of the key's organization (owners and admins): its projects' usage added up, each
   * project's figures (largest first), 90 days of history and the org quota.
   */
  orgUsage(options: Signal = {}): Promise<OrgUsage> {
    return this.#project('GET', '/org/usage', undefined, options);
  }

  /** Sets the key's organization's own storage quota in bytes, at most the operator's (org owners only); null removes it. */
  setOrgQuota(bytes: number | null, options: Signal = {}): Promise<OrgQuotaSettings> {
    return this.#project('PUT', '/org/quota', { bytes }, options);
  }

  /**
   * Deletes the project (its organization's owners): every key of it is refused from now on (410
   * project_deleted), and it is purged, with all its files, after `purgeAfter` unless an owner brings
   * it back from the dashboard or an operator with the admin API. Deleting it again is 410.
   */
  deleteProject(options: Signal = {}): Promise<ProjectDeletion> {
    return this.#project('DELETE', '', undefined, options);
  }

  /** The project's live feed: its events as they happen, reconnecting (with Last-Event-ID) when the connection drops. */
  events(options: FeedOptions = {}): AsyncGenerator<FeedMessage> {
    return followEvents(this, options);
  }
}

/** Every item of a keyset-paginated list, in one array. */
export async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of paginate(fetchPage)) items.push(item);
  return items;
}

/** Every item of a keyset-paginated list, page after page. */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
