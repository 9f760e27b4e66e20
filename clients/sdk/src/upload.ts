import type { LodeClient } from './client.ts';
import { LodeApiError, type FileFailure } from './errors.ts';
import type { ContentDigest } from './hash.ts';
import { chunk, createLimiter, mapLimit } from './limit.ts';
import { putFile } from './transfer.ts';
import type { ConfirmBody, ConfirmResult, InitiateResult } from './types.ts';

/** initiate-batch and confirm-batch take at most this many entries. */
export const MAX_BATCH = 1000;
/** A confirm lost to a teammate's upload of the same version is initiated again, at most this often. */
const CONFLICT_ROUNDS = 3;

export interface LocalFile {
  /** The project path (forward slashes). */
  path: string;
  /** Where the bytes are on disk. */
  localPath: string;
  digest: ContentDigest;
}

export interface UploadedFile {
  path: string;
  fileId: string;
  version: number;
  sha256: string;
  size: number;
  dedup: boolean;
}

export interface FlowProgress {
  /** Files finished since the last call. */
  files: number;
  /** Bytes moved since the last call (negative when a transfer is retried from its start). */
  bytes: number;
}

export interface FlowOptions {
  /** Transfers in flight at once (default 16). */
  concurrency?: number;
  /** Entries per batch call (default and most 1,000): smaller batches confirm, and report, sooner. */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (progress: FlowProgress) => void;
}

export interface UploadOptions extends FlowOptions {
  /** Told of each batch of confirmed versions as soon as it is confirmed, e.g. to journal them. */
  onConfirmed?: (files: UploadedFile[]) => void | Promise<void>;
}

export interface FlowResult<T> {
  done: T[];
  failures: FileFailure[];
}

/**
 * The upload flow: initiate-batch, parallel PUTs of the bytes the project lacks, confirm-batch.
 * Returns the confirmed versions (ready to commit) and the files that failed, each with its reason.
 */
export async function uploadFiles(client: LodeClient, files: LocalFile[], options: UploadOptions = {}): Promise<FlowResult<UploadedFile>> {
  const limit = createLimiter(options.concurrency ?? 16);
  const done: UploadedFile[] = [];
  const failures: FileFailure[] = [];
  let pending = files;
  for (let round = 1; pending.length > 0; round++) {
    const conflicted: LocalFile[] = [];
    // Two batches in flight: one initiates or confirms while the other's bytes move.
    await mapLimit(chunk(pending, Math.min(options.batchSize ?? MAX_BATCH, MAX_BATCH)), 2, async (batch) => {
      const outcome = await uploadBatch(client, batch, limit, options);
      done.push(...outcome.done);
      failures.push(...outcome.failures);
      conflicted.push(...outcome.conflicted);
      if (outcome.done.length > 0) await options.onConfirmed?.(outcome.done);
    });
    if (round >= CONFLICT_ROUNDS) {
      failures.push(...conflicted.map((f) => ({ path: f.path, code: 'version_conflict', message: 'another upload kept taking its version; push again' })));
      break;
    }
    pending = conflicted;
  }
  return { done, failures };
}

interface BatchOutcome {
  done: UploadedFile[];
  failures: FileFailure[];
  conflicted: LocalFile[];
}

async function uploadBatch(client: LodeClient, batch: LocalFile[], limit: ReturnType<typeof createLimiter>, options: UploadOptions): Promise<BatchOutcome> {
  const { signal } = options;
  const results = await client.initiateBatch(
    batch.map((f) => ({ path: f.path, sha256: f.digest.sha256, size: f.digest.size, contentMd5: f.digest.md5 })),
    { signal },
  );
  const outcome: BatchOutcome = { done: [], failures: [], conflicted: [] };
  const toConfirm: { file: LocalFile; body: ConfirmBody; dedup: boolean }[] = [];
  await Promise.all(
    results.map(async (result: InitiateResult, index) => {
      const file = batch[index];
      if ('error' in result) {
        outcome.failures.push({ path: file.path, code: result.code, message: result.error });
        return;
      }
      const base = { fileId: result.fileId, version: result.version, sha256: file.digest.sha256, size: file.digest.size };
      if ('dedup' in result) {
        options.onProgress?.({ files: 0, bytes: file.digest.size });
        toConfirm.push({ file, body: { ...base, dedup: true }, dedup: true });
        return;
      }
      try {
        await limit(() =>
          putFile(file.path, result.uploadUrl, result.requiredHeaders, file.localPath, {
            retry: client.transport.retry,
            signal,
            onBytes: (bytes) => options.onProgress?.({ files: 0, bytes }),
          }),
        );
        toConfirm.push({ file, body: { ...base, storageKey: result.storageKey }, dedup: false });
      } catch (error) {
        if (signal?.aborted) throw error;
        outcome.failures.push({ path: file.path, code: 'transfer_failed', message: (error as Error).message });
      }
    }),
  );
  if (toConfirm.length === 0) return outcome;
  const confirmed = await confirmAll(client, toConfirm.map((c) => c.body), signal);
  confirmed.forEach((result, index) => {
    const { file, dedup } = toConfirm[index];
    if ('confirmed' in result) {
      outcome.done.push({ path: file.path, fileId: result.fileId, version: result.version, sha256: file.digest.sha256, size: file.digest.size, dedup });
    } else if (result.code === 'version_conflict') outcome.conflicted.push(file);
    else outcome.failures.push({ path: file.path, code: result.code, message: result.error });
  });
  options.onProgress?.({ files: outcome.done.length, bytes: 0 });
  return outcome;
}

/** confirm-batch; a server without it (404 route_not_found) gets one confirm per file instead. */
async function confirmAll(client: LodeClient, bodies: ConfirmBody[], signal?: AbortSignal): Promise<ConfirmResult[]> {
  try {
    return await client.confirmBatch(bodies, { signal });
  } catch (error) {
    if (!(error instanceof LodeApiError && error.code === 'route_not_found')) throw error;
  }
  return mapLimit(bodies, 8, async (body): Promise<ConfirmResult> => {
    try {
      const answer = await client.confirmUpload(body, { signal });
      return { fileId: body.fileId, version: answer.version, confirmed: true };
    } catch (error) {
      if (!(error instanceof LodeApiError) || error.status >= 500) throw error;
      return { fileId: body.fileId, version: body.version, error: error.message, code: error.code };
    }
  });
}
