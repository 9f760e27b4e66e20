import { randomUUID } from 'node:crypto';
import { errors, type AppError } from '@lode/errors';
import { managesOrg, storage, type ParsedRequestOf } from '@lode/contracts';
import type { Database } from '@lode/db';
import { writeOutbox } from '@lode/outbox';
import type { QuotaRepository, QuotaRow } from '../repo/quota-repo.ts';
import type { UsageRepository } from '../repo/usage-repo.ts';
import { effectiveQuota, ownQuotaProblem, quotaRefusals, type QuotaBudget } from './quota-plan.ts';
import { TtlCache } from './ttl-cache.ts';

type QuotaRequest = ParsedRequestOf<typeof storage.setQuota>;

/**
 * How long an initiate trusts a project's quota it read: most projects have none, and reading it on
 * every initiate would add a round trip to the busiest call. A quota set through another replica
 * applies within this time; one set through this replica, at once.
 */
const QUOTA_CACHE_MS = 5000;
const QUOTA_CACHE_MAX = 10_000;

/** An upload an initiate is about to reserve, by its position in the request. */
export interface InitiatingUpload {
  index: number;
  sha256: string;
  size: number;
}

/**
 * Storage quotas (docs/storage.md, Quotas): the operator's through the admin API, the project's own
 * (at most the operator's) by the org's owners and admins; the lower applies to the project's stored
 * bytes, and the org's quota (org-quota-service.ts) beside it: an upload must fit both. Initiates
 * (single, batch, multipart, Git LFS uploads) are refused past either with 507
 * quota_exceeded, entry by entry; confirms are never refused, so a commit of uploads already under
 * way never half-succeeds. The check is made at initiate against what is stored then: initiates
 * running at once may together pass the quota by what they reserve. One warning event per crossing
 * of 80 %, after a fold.
 */
export class QuotaService {
  readonly #db: Database;
  readonly #quotas: QuotaRepository;
  readonly #usage: UsageRepository;
  readonly #assertProject: (projectId: string) => Promise<void>;
  readonly #onWarned: () => void;
  readonly #orgBudget: (orgId: string, projectId: string) => Promise<QuotaBudget | undefined>;
  readonly #cache = new TtlCache<string, storage.EffectiveQuota | null>({ ttlMs: QUOTA_CACHE_MS, maxEntries: QUOTA_CACHE_MAX });

  constructor(deps: {
    db: Database;
    quotas: QuotaRepository;
    usage: UsageRepository;
    assertProject: (projectId: string) => Promise<void>;
    onWarned: () => void;
    /** What the project's org quota holds it to, if the org has one. */
    orgBudget: (orgId: string, projectId: string) => Promise<QuotaBudget | undefined>;
  }) {
    this.#db = deps.db;
    this.#quotas = deps.quotas;
    this.#usage = deps.usage;
    this.#assertProject = deps.assertProject;
    this.#onWarned = deps.onWarned;
    this.#orgBudget = deps.orgBudget;
  }

  async set(request: QuotaRequest): Promise<storage.QuotaReply> {
    const { projectId, setter, bytes } = request;
    let row: QuotaRow;
    if (setter === 'operator') {
      await this.#assertProject(projectId);
      row = await this.#quotas.set(this.#db, projectId, 'operator', bytes);
    } else {
      if (!managesOrg(setter)) throw errors.forbidden("Only org owners and admins may set the project's quota");
      const problem = ownQuotaProblem('project', (await this.#quotas.limits(this.#db, projectId))?.operatorBytes ?? null, bytes);
      if (problem) throw problem;
      row = await this.#quotas.set(this.#db, projectId, 'project', bytes);
    }
    this.#cache.delete(projectId);
    return { quota: effectiveQuota(row), ...row };
  }

  /** The quota that applies to the project now. */
  async effective(projectId: string): Promise<storage.EffectiveQuota | null> {
    return effectiveQuota(await this.#quotas.limits(this.#db, projectId));
  }

  /**
   * Which of these uploads the project's quota or its org's refuses, by request position. Nothing is
   * read beyond the (cached) quotas for a project and org without one; otherwise the stored bytes
   * they hold to and which contents would deduplicate (those store nothing).
   */
  async refusals(scope: { projectId: string; orgId: string }, uploads: readonly InitiatingUpload[]): Promise<Map<number, AppError>> {
    if (uploads.length === 0) return new Map();
    const { projectId, orgId } = scope;
    const [quota, orgBudget] = await Promise.all([this.#cache.read(projectId, (id) => this.effective(id)), this.#orgBudget(orgId, projectId)]);
    if (quota === null && orgBudget === undefined) return new Map();
    const [figures, dedupable] = await Promise.all([
      quota === null ? undefined : this.#usage.figures(this.#db, [projectId]),
      this.#quotas.dedupable(this.#db, projectId, uploads),
    ]);
    const budgets: QuotaBudget[] = [...(quota && figures ? [{ usedBytes: figures[0].storedBytes, quota }] : []), ...(orgBudget ? [orgBudget] : [])];
    return quotaRefusals(
      budgets,
      uploads.map((u) => ({ index: u.index, size: u.size, dedup: dedupable.has(`${u.sha256}:${u.size}`) })),
    );
  }

  /**
   * Writes one quota.warning event for each project whose folded stored bytes crossed 80 % of its
   * quota since it was last below; answers how many. Run after a fold.
   */
  async warnCrossings(): Promise<number> {
    const crossed = await this.#db.transaction(async (tx) => {
      const rows = await this.#quotas.crossings(tx, storage.QUOTA_WARNING_SHARE);
      await writeOutbox(
        tx,
        rows.map((row) => {
          const event: storage.QuotaWarning = { ...row, scope: 'project', percent: Math.round((row.storedBytes / Math.max(1, row.quotaBytes)) * 1000) / 10 };
          return { subject: storage.quotaWarning.subject, id: randomUUID(), data: event };
        }),
      );
      return rows.length;
    });
    if (crossed > 0) this.#onWarned();
    return crossed;
  }
}
