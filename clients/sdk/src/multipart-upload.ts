import { stat } from 'node:fs/promises';
import type { LodeClient } from './client.ts';
import { LodeTransferError } from './errors.ts';
import type { ContentDigest, PartDigests } from './hash.ts';
import { runAll } from './limit.ts';
import { DEFAULT_PARTS_IN_FLIGHT, spans } from './parts.ts';
import type { RetryPolicy } from './retry.ts';
import { putFile } from './transfer.ts';
import type { InitiateFile, MultipartForm, PartForm } from './types.ts';

/** How a file's parts went: how many it has, how many this call PUT, how many the store already held. */
export interface PartsOutcome {
  total: number;
  uploaded: number;
  resumed: number;
}

export interface MultipartOptions {
  retry: RetryPolicy;
  signal?: AbortSignal;
  /** Runs each part's PUT: the flow's limiter, so that parts share its transfer slots. */
  limit?: <R>(task: () => Promise<R>) => Promise<R>;
  /** Parts of this file in flight at once (default 4). */
  partsInFlight?: number;
  /** Bytes moved (negative when a part's PUT is retried from its start). */
  onBytes?: (delta: number) => void;
  /** Told of each part the store holds: PUT now, or held already (a resumed upload). */
  onPart?: () => void;
  /** Checked before each part starts: true stops the file (its flow is failing). */
  stopped?: () => boolean;
}

/**
 * A part's URL is refused 403 when it expired (a large file's later parts may wait longer than
 * their URLs live); fresh URLs are asked for this often per part, no more: a URL refused fresh is
 * refused for another reason.
 */
const REFRESHES_PER_PART = 2;

/** The initiate entry of a file hashed in parts: each part's size and MD5, in order. */
export function multipartEntry(path: string, digest: ContentDigest & { parts: PartDigests }): InitiateFile {
  const { partSize, md5s } = digest.parts;
  const sizes = spans(digest.size, partSize);
  return {
    path,
    sha256: digest.sha256,
    size: digest.size,
    multipart: { partSize, parts: md5s.map((contentMd5, i) => ({ size: sizes[i].end - sizes[i].start, contentMd5 })) },
  };
}

/**
 * PUTs the parts of `form` the store lacks, from their ranges of the file, several at once; the
 * parts it already holds (an upload re-initiated after a crash) are counted, not sent. Completing
 * the object is the confirm's work.
 */
export async function putParts(
  client: LodeClient,
  file: { path: string; localPath: string; digest: ContentDigest },
  form: MultipartForm,
  options: MultipartOptions,
): Promise<PartsOutcome> {
  const { digest } = file;
  const partSize = form.multipart.partSize;
  if (!digest.parts || digest.parts.partSize !== partSize)
    throw new LodeTransferError(file.path, `the upload's part size (${partSize} bytes) is not the one it was hashed with (${digest.parts?.partSize})`);
  const all = spans(digest.size, partSize);
  const outcome: PartsOutcome = { total: all.length, uploaded: 0, resumed: 0 };
  for (const part of form.multipart.uploaded) {
    outcome.resumed++;
    options.onBytes?.(part.size);
    options.onPart?.();
  }
  if (form.multipart.parts.length === 0) return outcome;
  // Parts are PUT from the file as it is now, and each URL signs its part's MD5: a file that changed
  // since it was hashed is refused by the store part by part, so its size is checked first.
  const now = await stat(file.localPath);
  if (now.size !== digest.size)
    throw new LodeTransferError(file.path, `the file changed since it was hashed (${now.size} bytes now, ${digest.size} then)`, 400);
  const urls = new PartUrls(client, form);
  const limit = options.limit ?? ((task) => task());
  const toPut = [...form.multipart.parts].sort((a, b) => a.partNumber - b.partNumber);
  await runAll(toPut, options.partsInFlight ?? DEFAULT_PARTS_IN_FLIGHT, ({ partNumber }) =>
    limit(async () => {
      if (options.stopped?.()) throw new Error('the upload was stopped');
      const span = all[partNumber - 1];
      if (!span) throw new LodeTransferError(file.path, `the server asked for part ${partNumber} of ${all.length}`);
      for (let refreshes = 0; ; refreshes++) {
        const url = urls.get(partNumber);
        // Gone from a fresh list of URLs: the store holds it (an earlier try of ours whose answer was lost).
        if (!url) break;
        try {
          await putFile(`${file.path} (part ${partNumber} of ${all.length})`, url.uploadUrl, url.requiredHeaders, file.localPath, {
            retry: options.retry,
            signal: options.signal,
            onBytes: options.onBytes,
            range: { start: span.start, end: span.end },
          });
          break;
        } catch (error) {
          if (!(error instanceof LodeTransferError && error.status === 403) || refreshes >= REFRESHES_PER_PART) throw error;
          await urls.refresh(url, options.signal);
        }
      }
      outcome.uploaded++;
      options.onPart?.();
    }),
  );
  return outcome;
}

/**
 * The URL of each part still to PUT, renewed from the parts endpoint when one is refused as expired:
 * once for all the parts refused at about the same time, not once each.
 */
class PartUrls {
  readonly #client: LodeClient;
  readonly #fileId: string;
  readonly #version: number;
  #byPart: Map<number, PartForm>;
  #refreshing: Promise<void> | undefined;

  constructor(client: LodeClient, form: MultipartForm) {
    this.#client = client;
    this.#fileId = form.fileId;
    this.#version = form.version;
    this.#byPart = new Map(form.multipart.parts.map((p) => [p.partNumber, p]));
  }

  get(partNumber: number): PartForm | undefined {
    return this.#byPart.get(partNumber);
  }

  /** New URLs, unless they were renewed since `stale` was handed out. */
  async refresh(stale: PartForm, signal?: AbortSignal): Promise<void> {
    if (this.#byPart.get(stale.partNumber) !== stale) return;
    this.#refreshing ??= this.#client
      .uploadParts(this.#fileId, this.#version, { signal })
      .then((fresh) => {
        this.#byPart = new Map(fresh.multipart.parts.map((p) => [p.partNumber, p]));
      })
      .finally(() => {
        this.#refreshing = undefined;
      });
    await this.#refreshing;
  }
}
