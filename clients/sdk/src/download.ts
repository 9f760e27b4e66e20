import type { LodeClient } from './client.ts';
import type { FileFailure } from './errors.ts';
import { chunk, createLimiter, mapLimit } from './limit.ts';
import { DEFAULT_MULTIPART_THRESHOLD } from './parts.ts';
import { downloadInRanges } from './ranged-download.ts';
import { downloadToFile } from './transfer.ts';
import type { DownloadRequestEntry } from './types.ts';
import { MAX_BATCH, type FlowOptions, type FlowResult } from './upload.ts';

export interface DownloadTarget extends DownloadRequestEntry {
  /** Where to write the bytes (replaced in one rename once they match the SHA-256). */
  dest: string;
}

export interface DownloadedFile {
  path: string;
  fileId: string;
  version: number;
  sha256: string;
  size: number;
  dest: string;
  /** A file downloaded in byte ranges: its ranges, those fetched by this call and those found on disk from an interrupted download. */
  parts?: { total: number; downloaded: number; resumed: number };
}

/**
 * The download flow: batch download URLs (1,000 a call), then parallel GETs, each verified against
 * the SHA-256 the API reported before it replaces its destination. A file from `multipartThreshold`
 * comes in byte ranges, several at once, each taking a transfer slot, and resumes from the ranges
 * an interrupted download left on disk beside its destination (ranged-download.ts).
 */
export async function downloadFiles(
  client: LodeClient,
  targets: DownloadTarget[],
  options: FlowOptions & { branch?: string } = {},
): Promise<FlowResult<DownloadedFile>> {
  const { signal } = options;
  const limit = createLimiter(options.concurrency ?? 16);
  const threshold = options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD;
  const done: DownloadedFile[] = [];
  const failures: FileFailure[] = [];
  await mapLimit(chunk(targets, Math.min(options.batchSize ?? MAX_BATCH, MAX_BATCH)), 2, async (batch) => {
    const results = await client.downloadUrls(
      batch.map(({ fileId, path, version }) => ({ fileId, path, version })),
      options.branch,
      { signal },
    );
    await Promise.all(
      results.map(async (result, index) => {
        const target = batch[index];
        const name = target.path ?? target.fileId ?? target.dest;
        if ('error' in result) {
          // A target named by file id alone is reported by the path the server found for it.
          failures.push({ path: target.path ?? result.path ?? name, code: result.code, message: result.error });
          return;
        }
        const transfer = { retry: client.transport.retry, signal, onBytes: (bytes: number) => options.onProgress?.({ files: 0, bytes }) };
        try {
          let parts: DownloadedFile['parts'];
          if (result.size > 0 && result.size >= threshold) {
            const ranged = await downloadInRanges(result.path, result.downloadUrl, target.dest, result, {
              ...transfer,
              limit,
              rangesInFlight: options.partsInFlight,
              onPart: () => options.onProgress?.({ files: 0, bytes: 0, parts: 1 }),
              refreshUrl: async () => {
                const [fresh] = await client.downloadUrls([{ fileId: result.fileId, version: result.version }], options.branch, { signal });
                if (!fresh || 'error' in fresh) throw new Error(`no fresh download URL: ${fresh?.error ?? 'no answer'}`);
                return fresh.downloadUrl;
              },
            });
            parts = { total: ranged.ranges, downloaded: ranged.ranges - ranged.resumed, resumed: ranged.resumed };
          } else await limit(() => downloadToFile(result.path, result.downloadUrl, target.dest, result, transfer));
          options.onProgress?.({ files: 1, bytes: 0 });
          done.push({
            path: result.path,
            fileId: result.fileId,
            version: result.version,
            sha256: result.sha256,
            size: result.size,
            dest: target.dest,
            ...(parts ? { parts } : {}),
          });
        } catch (error) {
          if (signal?.aborted) throw error;
          failures.push({ path: result.path, code: 'transfer_failed', message: (error as Error).message });
        }
      }),
    );
  });
  return { done, failures };
}
