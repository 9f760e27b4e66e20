import { errors, type AppError } from '@lode/errors';
import type { orgStorage, storage } from '@lode/contracts';

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

/** The bytes a quota holds already (a project's stored bytes, or its org's projects' together) and the quota. */
export interface QuotaBudget {
  usedBytes: number;
  quota: { bytes: number; source: string };
}

/**
 * Which uploads of a request the quotas refuse, in request order: each one whose bytes would take any
 * budget's bytes (with the request's earlier uploads) past its quota; the error names the budget with
 * the least room left. A deduplicated upload stores nothing and always passes; a refused one leaves
 * room for a smaller one after it.
 */
export function quotaRefusals(budgets: readonly QuotaBudget[], uploads: readonly IncomingUpload[]): Map<number, AppError> {
  const refusals = new Map<number, AppError>();
  const used = budgets.map((budget) => budget.usedBytes);
  for (const upload of uploads) {
    if (upload.dedup) continue;
    let tightest: number | undefined;
    budgets.forEach((budget, i) => {
      const room = budget.quota.bytes - used[i];
      if (upload.size > room && (tightest === undefined || room < budgets[tightest].quota.bytes - used[tightest])) tightest = i;
    });
    if (tightest === undefined) {
      budgets.forEach((_, i) => (used[i] += upload.size));
      continue;
    }
    const { quota } = budgets[tightest];
    refusals.set(upload.index, errors.quotaExceeded(used[tightest], upload.size, quota.bytes, quota.source));
  }
  return refusals;
}

/** A project's (or org's) own quota may be at most the operator's: more is refused, never lowered. */
export function ownQuotaProblem(whose: 'project' | 'organization', operatorBytes: number | null, bytes: number | null): AppError | undefined {
  if (bytes === null || operatorBytes === null || bytes <= operatorBytes) return undefined;
  return errors.validation(`The ${whose}'s quota can be at most the operator's, ${operatorBytes} bytes`, {
    maximum: operatorBytes,
    issues: [{ path: 'bytes', message: `at most ${operatorBytes}` }],
  });
}

/** An org's two quotas: the operator's and its own (either may be unset). */
export interface OrgQuotaLimits {
  operatorBytes: number | null;
  orgBytes: number | null;
}

/** The org quota that applies: the lower of the two, the operator's on a tie; null when neither is set. */
export function effectiveOrgQuota(limits: OrgQuotaLimits | undefined): orgStorage.EffectiveOrgQuota | null {
  const quota = effectiveQuota(limits && { operatorBytes: limits.operatorBytes, projectBytes: limits.orgBytes });
  return quota && { bytes: quota.bytes, source: quota.source === 'operator' ? 'org_operator' : 'org' };
}
