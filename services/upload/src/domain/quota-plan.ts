import { errors, type AppError } from '@lode/errors';
import type { storage } from '@lode/contracts';

/** A project's two quotas: the operator's and its own (either may be unset). */
export interface QuotaLimits {
  operatorBytes: number | null;
  projectBytes: number | null;
}

/** An upload an initiate would reserve: whether its content deduplicates (storing nothing) and its size. */
export interface IncomingUpload {
  index: number;
  size: number;
  dedup: boolean;
}

/** The quota that applies: the lower of the two, the operator's on a tie; null when neither is set. */
export function effectiveQuota(limits: QuotaLimits | undefined): storage.EffectiveQuota | null {
  const { operatorBytes = null, projectBytes = null } = limits ?? {};
  if (operatorBytes === null && projectBytes === null) return null;
  if (projectBytes === null || (operatorBytes !== null && operatorBytes <= projectBytes)) return { bytes: operatorBytes!, source: 'operator' };
  return { bytes: projectBytes, source: 'project' };
}

/**
 * Which uploads of a request the quota refuses, in request order: each one whose bytes would take
 * the project's stored bytes (with the request's earlier uploads) past the quota. A deduplicated
 * upload stores nothing and always passes; a refused one leaves room for a smaller one after it.
 */
export function quotaRefusals(storedBytes: number, quota: storage.EffectiveQuota, uploads: readonly IncomingUpload[]): Map<number, AppError> {
  const refusals = new Map<number, AppError>();
  let used = storedBytes;
  for (const upload of uploads) {
    if (upload.dedup) continue;
    if (used + upload.size > quota.bytes) refusals.set(upload.index, errors.quotaExceeded(used, upload.size, quota.bytes, quota.source));
    else used += upload.size;
  }
  return refusals;
}

/** The project's own quota may be at most the operator's: more is refused, never lowered. */
export function projectQuotaProblem(operatorBytes: number | null, bytes: number | null): AppError | undefined {
  if (bytes === null || operatorBytes === null || bytes <= operatorBytes) return undefined;
  return errors.validation(`The project's quota can be at most the operator's, ${operatorBytes} bytes`, {
    maximum: operatorBytes,
    issues: [{ path: 'bytes', message: `at most ${operatorBytes}` }],
  });
}
