import type { LodeClient } from './client.ts';
import { LodeApiError, type FileFailure } from './errors.ts';
import { hashFile, type ContentDigest, type PartDigests } from './hash.ts';
import { createLimiter, mapLimit } from './limit.ts';
import { multipartEntry, putParts, type PartsOutcome } from './multipart-upload.ts';
import { DEFAULT_MULTIPART_THRESHOLD, movesInParts, partPlanProblem } from './parts.ts';
import { putFile } from './transfer.ts';
import type { ConfirmBody, ConfirmResult, InitiateFile, InitiateResult } from './types.ts';
import { initiateBatches } from './upload-plan.ts';

/** initiate-batch and confirm-batch take at most this many entries. */
export const MAX_BATCH = 1000;
/**
 * A confirm lost to a teammate's upload of the same version, or a dedup whose content was collected
 * before its confirm, is initiated again, at most this often.
 */
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
  /** A file uploaded in parts: its parts, those PUT by this call and those the store held already (a resumed upload). */
  parts?: PartsOutcome;
}

export interface FlowProgress {
  /** Files finished since the last call. */
  files: number;
  /** Bytes moved since the last call (negative when a transfer is retried from its start). */
  bytes: number;
  /**
   * Parts of files moved in parts (multipart uploads, ranged downloads) finished since the last call,
   * those found done already (resumed) included.
   */
  parts?: number;
}

export interface FlowOptions {
  /** Transfers in flight at once (default 16); each part of a file moved in parts takes one. */
  concurrency?: number;
  /**
   * Files of this size or more move in parts (default 64 MiB): a multipart upload, resumed where an
   * interrupted one stopped, and a download in byte ranges, resumed from the ranges on disk. An
   * upload above 5 GiB always goes in parts. Hash files with the same `multipartThreshold`
   * (hashFile) so that an upload does not read a file once more for its parts' MD5s.
   */
  multipartThreshold?: number;
  /** Parts (or ranges) of one file in flight at once, within `concurrency` (default 4). */
  partsInFlight?: number;
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

/** Initiated batches in hand at once: their URLs are used soon after they are signed, never an hour later. */
const BATCHES_IN_HAND = 3;
/**
 * The first initiate-batch takes at most this many files: no byte moves until it is answered, and
 * signing a full batch's URLs is time the transfers could already run in. The next batches
 * are initiated while the first one's bytes move.
 */
const FIRST_BATCH = 100;
/**
 * A confirm-batch waits for at least this many uploaded files (or the last of them), and while
 * transfers run one call is in flight: the next takes every file uploaded meanwhile. Each call costs
 * the server CPU whatever its size, CPU the transfers share, so a few large calls leave the transfers
 * more of it than slices of 100 two at a time (docs/performance.md).
 */
const CONFIRM_FROM = 500;
/** Once the transfers are over the last slice goes at once, beside a call still in flight: it is what the commit waits for. */
const CONFIRMS_IN_FLIGHT = { transfersRunning: 1, transfersOver: 2 };

/**
 * The upload flow: initiate-batch, parallel PUTs of the bytes the project lacks, confirm-batch.
 * Returns the confirmed versions (ready to commit) and the files that failed, each with its reason.
 *
 * A pipeline that never drains between steps: the largest files go first (a big file started last
 * would move alone at the end), the next batches are initiated while the first one's bytes move, and
 * uploaded files are confirmed in slices as their PUTs finish, so only the last slice's confirm
 * waits after the last byte.
 */
export async function uploadFiles(client: LodeClient, files: LocalFile[], options: UploadOptions = {}): Promise<FlowResult<UploadedFile>> {
  const limit = createLimiter(options.concurrency ?? 16);
  const done: UploadedFile[] = [];
  const failures: FileFailure[] = [];
  let pending = [...files].sort((a, b) => b.digest.size - a.digest.size);
  const threshold = options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD;
  for (let round = 1; pending.length > 0; round++) {
    const outcome = await uploadRound(client, pending, limit, { ...options, multipartThreshold: threshold });
    done.push(...outcome.done);
    failures.push(...outcome.failures);
    if (round >= CONFLICT_ROUNDS) {
      failures.push(
        ...outcome.conflicted.map((f) => ({ path: f.path, code: 'version_conflict', message: 'another upload kept taking its version; push again' })),
      );
      break;
    }
    pending = outcome.conflicted;
  }
  return { done, failures };
}

interface RoundOutcome {
  done: UploadedFile[];
  failures: FileFailure[];
  conflicted: LocalFile[];
}

interface ToConfirm {
  file: LocalFile;
  body: ConfirmBody;
  dedup: boolean;
  parts?: PartsOutcome;
}

/** Whether a digest carries part MD5s that make a multipart upload of its file. */
function hasPartPlan(digest: ContentDigest): digest is ContentDigest & { parts: PartDigests } {
  return digest.parts !== undefined && partPlanProblem(digest.size, digest.parts.partSize, digest.parts.md5s.length) === undefined;
}

/**
 * The file with a digest fit for how it goes: part MD5s for a multipart upload (from the threshold,
 * or whenever the digest has them), a whole-file MD5 for a single PUT. A digest that lacks them
 * (hashed with another threshold) costs one more read of the file; content that changed since it
 * was hashed fails the file.
 */
async function readyToInitiate(file: LocalFile, threshold: number, signal?: AbortSignal): Promise<LocalFile> {
  const { digest } = file;
  const inParts = hasPartPlan(digest) || movesInParts(digest.size, threshold);
  if (inParts ? hasPartPlan(digest) : digest.md5 !== undefined) return file;
  const again = await hashFile(file.localPath, signal, digest.size, inParts ? { multipartThreshold: Math.min(threshold, digest.size) } : {});
  if (again.sha256 !== digest.sha256 || again.size !== digest.size) throw new Error('the file changed since it was hashed');
  return { ...file, digest: again };
}

function initiateEntry(file: LocalFile): InitiateFile {
  const { digest } = file;
  if (hasPartPlan(digest)) return multipartEntry(file.path, digest);
  return { path: file.path, sha256: digest.sha256, size: digest.size, contentMd5: digest.md5 };
}

/**
 * One pass over `files`. A failed call (initiate, confirm) stops it: nothing new starts, what is in
 * flight finishes, then the error is thrown, so no transfer goes on behind the caller's back.
 */
async function uploadRound(
  client: LodeClient,
  files: LocalFile[],
  limit: ReturnType<typeof createLimiter>,
  options: UploadOptions & { multipartThreshold: number },
): Promise<RoundOutcome> {
  const { signal } = options;
  const outcome: RoundOutcome = { done: [], failures: [], conflicted: [] };
  let fatal: { error: unknown } | null = null;
  const fail = (error: unknown) => {
    fatal ??= { error };
  };

  // Confirms, in slices as files are uploaded; onConfirmed is told of them one slice after another.
  const batchSize = Math.min(options.batchSize ?? MAX_BATCH, MAX_BATCH);
  const confirmFrom = Math.min(CONFIRM_FROM, batchSize);
  const waiting: ToConfirm[] = [];
  const confirms = new Set<Promise<void>>();
  let uploadsOver = false;
  let told = Promise.resolve();
  const confirmSlice = async (slice: ToConfirm[]) => {
    const results = await confirmAll(
      client,
      slice.map((c) => c.body),
      signal,
    );
    const confirmed: UploadedFile[] = [];
    results.forEach((result, index) => {
      const { file, dedup, parts } = slice[index];
      if ('confirmed' in result)
        confirmed.push({
          path: file.path,
          fileId: result.fileId,
          version: result.version,
          sha256: file.digest.sha256,
          size: file.digest.size,
          dedup,
          ...(parts ? { parts } : {}),
        });
      // Another round initiates it again: a version a teammate's upload took gets the next number, and
      // content the collector deleted between the dedup's initiate and its confirm is uploaded.
      else if (result.code === 'version_conflict' || (dedup && result.code === 'not_found')) outcome.conflicted.push(file);
      else outcome.failures.push({ path: file.path, code: result.code, message: result.error });
    });
    outcome.done.push(...confirmed);
    options.onProgress?.({ files: confirmed.length, bytes: 0 });
    if (confirmed.length > 0) {
      told = told.then(() => options.onConfirmed?.(confirmed));
      await told;
    }
  };
  const sendConfirms = () => {
    const inFlight = uploadsOver ? CONFIRMS_IN_FLIGHT.transfersOver : CONFIRMS_IN_FLIGHT.transfersRunning;
    while (!fatal && confirms.size < inFlight && (waiting.length >= confirmFrom || (uploadsOver && waiting.length > 0))) {
      const call = confirmSlice(waiting.splice(0, batchSize))
        .catch(fail)
        .finally(() => {
          confirms.delete(call);
          sendConfirms();
        });
      confirms.add(call);
    }
  };
  const uploaded = (entry: ToConfirm) => {
    waiting.push(entry);
    sendConfirms();
  };

  // Initiates one at a time and in order (largest files first), a few batches ahead of the transfers.
  const initiating = createLimiter(1);
  const first = Math.min(batchSize, FIRST_BATCH);
  const batches = initiateBatches(files, first, batchSize);
  const transfers: Promise<void>[] = [];
  await mapLimit(batches, BATCHES_IN_HAND, async (planned) => {
    if (fatal) return;
    let results: InitiateResult[];
    let batch: LocalFile[];
    try {
      const ready = await Promise.all(
        planned.map((file) =>
          readyToInitiate(file, options.multipartThreshold, signal).catch((error: unknown) => {
            if (signal?.aborted) throw error;
            outcome.failures.push({ path: file.path, code: 'transfer_failed', message: (error as Error).message });
            return null;
          }),
        ),
      );
      batch = ready.filter((file): file is LocalFile => file !== null);
      if (batch.length === 0) return;
      results = await initiating(() => {
        if (fatal) throw fatal.error;
        return client.initiateBatch(batch.map(initiateEntry), { signal });
      });
    } catch (error) {
      return fail(error);
    }
    const batchTransfers = results.map(async (result, index) => {
      const file = batch[index];
      if ('error' in result) {
        outcome.failures.push({ path: file.path, code: result.code, message: result.error });
        return;
      }
      const base = { fileId: result.fileId, version: result.version, sha256: file.digest.sha256, size: file.digest.size };
      if ('dedup' in result) {
        // A file that would have gone in parts has its parts accounted for, none to move.
        options.onProgress?.({ files: 0, bytes: file.digest.size, parts: hasPartPlan(file.digest) ? file.digest.parts.md5s.length : 0 });
        uploaded({ file, body: { ...base, dedup: true }, dedup: true });
        return;
      }
      if ('multipart' in result) {
        // Each part takes a transfer slot of its own (putParts), so the file takes none meanwhile.
        try {
          const parts = await putParts(client, file, result, {
            retry: client.transport.retry,
            signal,
            limit,
            partsInFlight: options.partsInFlight,
            onBytes: (bytes) => options.onProgress?.({ files: 0, bytes }),
            onPart: () => options.onProgress?.({ files: 0, bytes: 0, parts: 1 }),
            stopped: () => fatal !== null,
          });
          uploaded({ file, body: { ...base, storageKey: result.storageKey }, dedup: false, parts });
        } catch (error) {
          if (signal?.aborted) return fail(error);
          if (fatal) return;
          outcome.failures.push({ path: file.path, code: 'transfer_failed', message: (error as Error).message });
        }
        return;
      }
      await limit(async () => {
        if (fatal) return;
        try {
          await putFile(file.path, result.uploadUrl, result.requiredHeaders, file.localPath, {
            retry: client.transport.retry,
            signal,
            onBytes: (bytes) => options.onProgress?.({ files: 0, bytes }),
          });
          uploaded({ file, body: { ...base, storageKey: result.storageKey }, dedup: false });
        } catch (error) {
          if (signal?.aborted) return fail(error);
          outcome.failures.push({ path: file.path, code: 'transfer_failed', message: (error as Error).message });
        }
      });
    });
    transfers.push(...batchTransfers);
    // This batch leaves the hand once its transfers are over, making room for the next initiate.
    await Promise.all(batchTransfers);
  });
  await Promise.all(transfers);
  uploadsOver = true;
  sendConfirms();
  while (confirms.size > 0) await Promise.all(confirms);
  if (fatal) throw (fatal as { error: unknown }).error;
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
