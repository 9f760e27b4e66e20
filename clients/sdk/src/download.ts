import type { LodeClient } from './client.ts';
import type { FileFailure } from './errors.ts';
import { chunk, createLimiter, mapLimit } from './limit.ts';
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
}

/**
 * The download flow: batch download URLs (1,000 a call), then parallel GETs, each verified against
 * the SHA-256 the API reported before it replaces its destination.
 */
export async function downloadFiles(
  client: LodeClient,
  targets: DownloadTarget[],
  options: FlowOptions & { branch?: string } = {},
): Promise<FlowResult<DownloadedFile>> {
  const { signal } = options;
  const limit = createLimiter(options.concurrency ?? 16);
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
          failures.push({ path: name, code: result.code, message: result.error });
          return;
        }
        try {
          await limit(() =>
            downloadToFile(result.path, result.downloadUrl, target.dest, result, {
              retry: client.transport.retry,
              signal,
              onBytes: (bytes) => options.onProgress?.({ files: 0, bytes }),
            }),
          );
          options.onProgress?.({ files: 1, bytes: 0 });
          done.push({ path: result.path, fileId: result.fileId, version: result.version, sha256: result.sha256, size: result.size, dest: target.dest });
        } catch (error) {
          if (signal?.aborted) throw error;
          failures.push({ path: result.path, code: 'transfer_failed', message: (error as Error).message });
        }
      }),
    );
  });
  return { done, failures };
}
