import { randomUUID } from 'node:crypto';
import { ApiTransport, type CallOptions, type ConnectionOptions } from './http.ts';
import type {
  Branch,
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
  Identity,
  InitiateFile,
  InitiateResult,
  Lock,
  LockQuery,
  LockResponse,
  MergeRequest,
  Page,
  PageQuery,
  RestoreResponse,
  SyncRequest,
  SyncResponse,
  TreeFile,
  UnlockResponse,
  UploadForm,
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
    const projectId = await this.projectId(options);
    return this.transport.call(method, `/api/v1/projects/${projectId}${path}`, body, options);
  }

  sync(request: SyncRequest, options: Signal = {}): Promise<SyncResponse> {
    return this.#project('POST', '/sync', request, options);
  }

  initiateUpload(file: InitiateFile, options: Signal = {}): Promise<UploadForm | DedupForm> {
    return this.#project('POST', '/files/upload/initiate', file, options);
  }

  async initiateBatch(files: InitiateFile[], options: Signal = {}): Promise<InitiateResult[]> {
    return (await this.#project<{ results: InitiateResult[] }>('POST', '/files/upload/initiate-batch', { files }, options)).results;
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

  addDraftFiles(draftId: string, fileVersions: CommitEntry[], options: Signal = {}): Promise<{ id: string; fileCount: number }> {
    return this.#project('POST', `/drafts/${encodeURIComponent(draftId)}/files`, { fileVersions }, options);
  }

  commitDraft(draftId: string, options: Signal & { idempotencyKey?: string } = {}): Promise<CommitCreated> {
    return this.#project('POST', `/drafts/${encodeURIComponent(draftId)}/commit`, undefined, { ...options, idempotencyKey: options.idempotencyKey ?? randomUUID() });
  }

  deleteDraft(draftId: string, options: Signal = {}): Promise<unknown> {
    return this.#project('DELETE', `/drafts/${encodeURIComponent(draftId)}`, undefined, options);
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
