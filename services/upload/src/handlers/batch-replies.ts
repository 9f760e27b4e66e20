import type { ReplyInputOf, upload } from '@lode/contracts';
import type { InitiateOutcome } from '../domain/upload-service.ts';
import type { ConfirmOutcome } from '../domain/batch-confirmer.ts';

/** Per-file failures become the API's error form `{path, error}` (plus our `code`), never a failed batch. */
export function initiateBatchReply(outcomes: readonly InitiateOutcome[]): ReplyInputOf<typeof upload.initiateBatch> {
  return {
    results: outcomes.map((r) => ('failure' in r ? { path: r.path, error: r.failure.message, code: r.failure.code } : r)),
  };
}

/** Per-file failures become the error form `{ fileId, version, error, code }`, never a failed batch. */
export function confirmBatchReply(outcomes: readonly ConfirmOutcome[]): ReplyInputOf<typeof upload.confirmBatch> {
  return {
    results: outcomes.map((r) => {
      if (!('failure' in r)) return r;
      const form = { fileId: r.fileId, version: r.version, error: r.failure.message, code: r.failure.code };
      return r.failure.code === 'version_conflict' ? { ...form, versionConflict: true as const } : form;
    }),
  };
}
