import type { CommitAction, Confirmation, LodeApi } from './api.ts';
import type { Content } from './content.ts';
import { uuidV4 } from './ids.ts';
import { intEnv } from './env.ts';
import { chunks } from './lists.ts';
import { recordOutcome, reportError, type Outcome } from './outcome.ts';

// A client's push: initiate-batch → PUT each new blob to its presigned URL → confirm
// each file → one commit. Used by the push flow and, tagged flow=setup, to seed the other flows.

const MAX_INITIATE = 1000; // files per initiate-batch (docs/api.md, Input rules)
const MAX_COMMIT = 25000; // entries per commit (docs/api.md, Input rules)

/** Concurrent PUTs and confirms of one push (one http.batch each). */
export const UPLOAD_PARALLEL = intEnv('UPLOAD_PARALLEL', 16, 1, 1000);

export interface LocalFile {
  path: string;
  content: Content;
}

export interface PushedFile {
  path: string;
  fileId: string;
  version: number;
}

export interface PushOptions {
  message: string;
  action?: CommitAction;
  /** 409 codes that this flow's contention makes a normal result; they end the push as `expected`. */
  conflicts?: readonly string[];
}

export interface PushResult {
  outcome: Outcome;
  /** The step that ended a push that did not commit. */
  stoppedAt?: string;
  files: PushedFile[];
}

type Reserved = Confirmation & { path: string; upload?: { url: string; headers: Record<string, string>; body: ArrayBuffer | string } };

function reserve(api: LodeApi, files: readonly LocalFile[]): Reserved[] | Outcome {
  const reserved: Reserved[] = [];
  for (const batch of chunks(files, MAX_INITIATE)) {
    const call = api.initiateBatch(batch.map((f) => ({ path: f.path, sha256: f.content.sha256, size: f.content.size, contentMd5: f.content.md5 })));
    if (call.outcome !== 'ok' || call.body === undefined) return call.outcome;
    for (const [i, result] of call.body.results.entries()) {
      const file = batch[i];
      const { sha256, size } = file.content;
      if ('error' in result) {
        // The call answered 200, but an entry the flow built correctly was refused: an error all the same.
        recordOutcome({ flow: api.flow, step: 'initiate-entry' }, 'error', result.code);
        reportError({ flow: api.flow, step: 'initiate-entry' }, `${result.path}: ${result.code} ${result.error}`);
        return 'error';
      }
      if ('dedup' in result) {
        reserved.push({ path: file.path, fileId: result.fileId, version: result.version, dedup: true, sha256, size });
      } else {
        reserved.push({
          path: file.path,
          fileId: result.fileId,
          version: result.version,
          storageKey: result.storageKey,
          sha256,
          size,
          upload: { url: result.uploadUrl, headers: result.requiredHeaders, body: file.content.body },
        });
      }
    }
  }
  return reserved;
}

/** The first outcome that is not `ok` among calls, or `ok`. */
function worst(outcomes: readonly Outcome[]): Outcome {
  return outcomes.find((o) => o === 'error') ?? outcomes.find((o) => o === 'expected') ?? 'ok';
}

export function pushFiles(api: LodeApi, files: readonly LocalFile[], options: PushOptions): PushResult {
  const conflicts = options.conflicts ?? [];
  const reserved = reserve(api, files);
  if (typeof reserved === 'string') return { outcome: reserved, stoppedAt: 'initiate-batch', files: [] };

  for (const group of chunks(reserved, UPLOAD_PARALLEL)) {
    const uploads = group.flatMap((r) => (r.upload ? [r.upload] : []));
    const put = worst(api.putAll(uploads).map((c) => c.outcome));
    if (put !== 'ok') return { outcome: put, stoppedAt: 'put', files: [] };
    const confirmations = group.map(({ path: _path, upload: _upload, ...confirmation }) => confirmation);
    const confirmed = worst(api.confirmAll(confirmations, conflicts).map((c) => c.outcome));
    if (confirmed !== 'ok') return { outcome: confirmed, stoppedAt: 'confirm', files: [] };
  }

  const pushed = reserved.map((r) => ({ path: r.path, fileId: r.fileId, version: r.version }));
  for (const part of chunks(pushed, MAX_COMMIT)) {
    const entries = part.map((f) => ({ fileId: f.fileId, version: f.version, action: options.action ?? 'add' }));
    const commit = api.commit(options.message, entries, uuidV4(), conflicts);
    if (commit.outcome !== 'ok') return { outcome: commit.outcome, stoppedAt: 'commit', files: [] };
  }
  return { outcome: 'ok', files: pushed };
}
