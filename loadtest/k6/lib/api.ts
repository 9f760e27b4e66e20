import http, { type Params, type Response } from 'k6/http';
import { classify, recordOutcome, reportError, type Labels, type Outcome } from './outcome.ts';

// A typed client of Lode's project API (../shared/SPEC.md, docs/api.md). Every request is tagged with
// its flow, its step and a URL template as `name`, so per-flow thresholds select it and ids in paths
// do not explode the metrics' cardinality.

export interface Credentials {
  baseUrl: string;
  projectId: string;
  key: string;
  deviceId: string;
}

export interface Call<T> {
  outcome: Outcome;
  status: number;
  code: string | undefined;
  body: T | undefined;
  response: Response;
}

export interface UploadRequest {
  path: string;
  sha256: string;
  size: number;
  contentMd5: string;
}

export type InitiateResult =
  | { path: string; fileId: string; version: number; storageKey: string; uploadUrl: string; requiredHeaders: Record<string, string> }
  | { path: string; fileId: string; version: number; dedup: true }
  | { path: string; error: string; code: string };

export type Confirmation =
  | { fileId: string; version: number; storageKey: string; sha256: string; size: number }
  | { fileId: string; version: number; dedup: true; sha256: string; size: number };

export type CommitAction = 'add' | 'modify' | 'delete';

export interface FileVersionRef {
  fileId: string;
  version: number;
  action: CommitAction;
}

export interface CommitReply {
  id: string;
  sequenceNum: number;
  message: string;
  fileCount: number;
}

export type SyncStatus = 'up_to_date' | 'outdated' | 'missing' | 'local_only' | 'modified' | 'conflict' | 'deleted_remote';

export interface SyncRequest {
  files: { path: string; sha256: string }[];
  includeRemoteOnly?: boolean;
  session?: { id: string; batch: number };
}

export interface SyncReply {
  files: { path: string; status: SyncStatus; fileId: string | null; remoteVersion: number | null; remoteSha256: string | null }[];
  latestCommitSeq: number;
}

export interface FileVersion {
  id: string;
  version: number;
  size: number;
  sha256: string;
  commitId: string;
  downloadUrl: string;
  createdAt: string;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface Lock {
  fileId: string;
  path: string;
  userId: string;
  isMine: boolean;
}

export interface LockReply {
  acquired: Lock[];
  conflicts: { reason: 'locked' | 'committing'; fileId: string; path: string }[];
  notFound: string[];
}

export interface UnlockReply {
  released: Lock[];
  notReleased: { reason: 'held_by_other' | 'not_locked'; fileId: string }[];
  notFound: string[];
}

interface Expectation {
  ok: readonly number[];
  /** 409 codes that are a normal result of this flow's contention. */
  conflicts?: readonly string[];
}

interface PreparedRequest {
  method: string;
  url: string;
  body: string | ArrayBuffer | null;
  params: Params;
  labels: Labels;
  expect: Expectation;
  /** Whether a wanted answer carries a JSON body (storage PUTs answer with none). */
  json: boolean;
}

// 409s the flow provokes on purpose are not failures for http_req_failed either.
const conflictsAllowed = http.expectedStatuses({ min: 200, max: 399 }, 409);

function parsed<T>(res: Response): T | undefined {
  try {
    return res.json() as unknown as T;
  } catch {
    return undefined;
  }
}

function settle<T>(req: PreparedRequest, res: Response): Call<T> {
  const classified = classify(res, req.expect.ok, req.expect.conflicts ?? []);
  const body = classified.outcome === 'ok' && req.json ? parsed<T>(res) : undefined;
  const malformed = classified.outcome === 'ok' && req.json && body === undefined;
  const outcome: Outcome = malformed ? 'error' : classified.outcome;
  recordOutcome(req.labels, outcome, classified.code);
  if (outcome === 'error') reportError(req.labels, malformed ? 'answer is not JSON' : `unexpected ${classified.code ?? 'status'}`, res);
  return { outcome, status: res.status, code: classified.code, body, response: res };
}

function send<T>(req: PreparedRequest): Call<T> {
  return settle<T>(req, http.request(req.method, req.url, req.body, req.params));
}

/** Sends requests in parallel (k6 spreads a batch over several connections) and settles each. */
function sendAll<T>(reqs: readonly PreparedRequest[]): Call<T>[] {
  if (reqs.length === 0) return [];
  const responses = http.batch(reqs.map((r) => ({ method: r.method, url: r.url, body: r.body, params: r.params })));
  return reqs.map((req, i) => settle<T>(req, responses[i]));
}

const PROJECT = '/api/v1/projects/{projectId}';

export class LodeApi {
  readonly flow: string;
  readonly creds: Credentials;

  constructor(flow: string, creds: Credentials) {
    this.flow = flow;
    this.creds = creds;
  }

  /**
   * `route` is the URL template that names the request in metrics; `path` the real one (when it
   * holds more ids than the project's, or a query).
   */
  private prepare(
    method: string,
    route: string,
    step: string,
    body: unknown,
    expect: Expectation,
    extra: { path?: string; headers?: Record<string, string> } = {},
  ): PreparedRequest {
    const path = (extra.path ?? route).replace('{projectId}', this.creds.projectId);
    return {
      method,
      url: `${this.creds.baseUrl}${path}`,
      body: body === undefined ? null : JSON.stringify(body),
      params: {
        headers: {
          Authorization: `Bearer ${this.creds.key}`,
          'X-Device-Id': this.creds.deviceId,
          'Content-Type': 'application/json',
          ...extra.headers,
        },
        tags: { flow: this.flow, step, name: `${method} ${route}` },
        ...(expect.conflicts && expect.conflicts.length > 0 ? { responseCallback: conflictsAllowed } : {}),
      },
      labels: { flow: this.flow, step },
      expect,
      json: true,
    };
  }

  validateKey(): Call<{ valid: boolean; projectId: string; userId: string }> {
    return send(this.prepare('POST', '/api/v1/auth/validate-key', 'validate-key', undefined, { ok: [200] }));
  }

  initiateBatch(files: readonly UploadRequest[]): Call<{ results: InitiateResult[] }> {
    return send(this.prepare('POST', `${PROJECT}/files/upload/initiate-batch`, 'initiate-batch', { files }, { ok: [200] }));
  }

  /** PUTs bodies to their presigned URLs with the required headers verbatim. */
  putAll(uploads: readonly { url: string; headers: Record<string, string>; body: ArrayBuffer | string }[]): Call<null>[] {
    const labels = { flow: this.flow, step: 'put' };
    return sendAll<null>(
      uploads.map((u) => ({
        method: 'PUT',
        url: u.url,
        body: u.body,
        params: { headers: u.headers, tags: { ...labels, name: 'PUT {uploadUrl}' } },
        labels,
        expect: { ok: [200, 201, 204] },
        json: false,
      })),
    );
  }

  confirmAll(confirmations: readonly Confirmation[], conflicts: readonly string[] = []): Call<{ confirmed: boolean; version: number }>[] {
    return sendAll(confirmations.map((c) => this.prepare('POST', `${PROJECT}/files/upload/confirm`, 'confirm', c, { ok: [200], conflicts })));
  }

  commit(message: string, fileVersions: readonly FileVersionRef[], idempotencyKey: string, conflicts: readonly string[] = []): Call<CommitReply> {
    return send(
      this.prepare(
        'POST',
        `${PROJECT}/commits`,
        'commit',
        { message, fileVersions },
        { ok: [201], conflicts },
        { headers: { 'X-Idempotency-Key': idempotencyKey } },
      ),
    );
  }

  sync(request: SyncRequest): Call<SyncReply> {
    return send(this.prepare('POST', `${PROJECT}/sync`, 'sync', request, { ok: [200] }));
  }

  /** Batches of one sync session that may travel in parallel (every batch but the last). */
  syncAll(requests: readonly SyncRequest[]): Call<SyncReply>[] {
    return sendAll(requests.map((r) => this.prepare('POST', `${PROJECT}/sync`, 'sync', r, { ok: [200] })));
  }

  versions(fileId: string, limit: number, cursor: string | null): Call<Page<FileVersion>> {
    const query = `?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const route = `${PROJECT}/files/{fileId}/versions`;
    return send(this.prepare('GET', route, 'versions', undefined, { ok: [200] }, { path: route.replace('{fileId}', fileId) + query }));
  }

  lock(fileIds: readonly string[], note: string): Call<LockReply> {
    return send(this.prepare('POST', `${PROJECT}/locks`, 'lock', { fileIds, note }, { ok: [200] }));
  }

  unlock(fileIds: readonly string[]): Call<UnlockReply> {
    return send(this.prepare('DELETE', `${PROJECT}/locks`, 'unlock', { fileIds }, { ok: [200] }));
  }

  /** Downloads a presigned URL's bytes, for the caller to check against the SHA-256 the API reported. */
  download(url: string): { outcome: Outcome; bytes: ArrayBuffer | null } {
    const labels = { flow: this.flow, step: 'download' };
    const call = send<null>({
      method: 'GET',
      url,
      body: null,
      params: { responseType: 'binary', tags: { ...labels, name: 'GET {downloadUrl}' } },
      labels,
      expect: { ok: [200] },
      json: false,
    });
    const body = call.response.body;
    return { outcome: call.outcome, bytes: call.outcome === 'ok' && body instanceof ArrayBuffer ? body : null };
  }
}
