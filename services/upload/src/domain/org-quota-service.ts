import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { storage, type orgStorage, type ParsedRequestOf } from '@lode/contracts';
import type { Database } from '@lode/db';
import { writeOutbox } from '@lode/outbox';
import { observeGauges } from '@lode/telemetry';
import type { OrgProjects, OrgQuotaRepository, OrgQuotaRow } from '../repo/org-quota-repo.ts';
import type { UsageRepository } from '../repo/usage-repo.ts';
import type { OrgDirectory } from './org-directory.ts';
import { effectiveOrgQuota, ownQuotaProblem, type QuotaBudget } from './quota-plan.ts';
import { TtlCache } from './ttl-cache.ts';

type OrgQuotaRequest = ParsedRequestOf<typeof orgStorage.setOrgQuota>;

/** How long an initiate trusts an org's quota it read, as a project's (quota-service.ts). */
const QUOTA_CACHE_MS = 5000;
const QUOTA_CACHE_MAX = 10_000;

/**
 * Org quotas (docs/storage.md, Organization usage and quotas): the operator's through the admin API,
 * the org's own (at most the operator's) by its owners only: it caps every project of the org, which
 * is the owners' call, as billing is. The lower applies to the org's projects' stored bytes together,
 * beside each project's own quota: an initiate must fit both. One warning per crossing of 80 %, sent
 * to each project of the org.
 */
export class OrgQuotaService {
  readonly #db: Database;
  readonly #quotas: OrgQuotaRepository;
  readonly #usage: UsageRepository;
  readonly #directory: OrgDirectory;
  readonly #onWarned: () => void;
  readonly #cache = new TtlCache<string, orgStorage.EffectiveOrgQuota | null>({ ttlMs: QUOTA_CACHE_MS, maxEntries: QUOTA_CACHE_MAX });

  constructor(deps: { db: Database; quotas: OrgQuotaRepository; usage: UsageRepository; directory: OrgDirectory; onWarned: () => void }) {
    this.#db = deps.db;
    this.#quotas = deps.quotas;
    this.#usage = deps.usage;
    this.#directory = deps.directory;
    this.#onWarned = deps.onWarned;
  }

  async set(request: OrgQuotaRequest): Promise<orgStorage.OrgQuotaReply> {
    const { orgId, caller, bytes } = request;
    const role = await this.#directory.roleOf(orgId, caller);
    let row: OrgQuotaRow;
    if (role === 'operator') {
      await this.#directory.assertOrg(orgId);
      row = await this.#quotas.set(this.#db, orgId, 'operator', bytes);
    } else {
      if (role !== 'owner') throw errors.forbidden("Only the organization's owners may set its quota");
      const problem = ownQuotaProblem('organization', (await this.#quotas.limits(this.#db, orgId))?.operatorBytes ?? null, bytes);
      if (problem) throw problem;
      row = await this.#quotas.set(this.#db, orgId, 'org', bytes);
    }
    this.#cache.delete(orgId);
    return { quota: effectiveOrgQuota(row), ...row };
  }

  /** The org's two quotas and the one that applies now. */
  async limits(orgId: string): Promise<orgStorage.OrgQuotaReply> {
    const row = (await this.#quotas.limits(this.#db, orgId)) ?? { operatorBytes: null, orgBytes: null };
    return { quota: effectiveOrgQuota(row), ...row };
  }

  /**
   * What an initiate in `projectId` is held to by its org: the org quota (cached) and the org's
   * projects' stored bytes together now (a deleted project's until its purge, as they still take
   * space; a purged one's never); nothing more is read for an org without one.
   */
  async budget(orgId: string, projectId: string): Promise<QuotaBudget | undefined> {
    const quota = await this.#cache.read(orgId, async (id) => (await this.limits(id)).quota);
    if (quota === null) return undefined;
    const projects = await this.#usage.figures(this.#db, await this.#directory.projectIdsOf(orgId, projectId));
    return { usedBytes: projects.reduce((sum, project) => sum + project.storedBytes, 0), quota };
  }

  /**
   * Writes quota.warning events (scope org, one for each of its projects) for each org whose projects'
   * folded stored bytes together crossed 80 % of its quota since it was last below; answers how many
   * orgs. Run after a fold.
   */
  async warnCrossings(): Promise<number> {
    const watched = await this.#quotas.watched(this.#db);
    if (watched.length === 0) return 0;
    // Asked before the transaction: a bus call inside it would hold its row locks for the round trip.
    const orgs = await this.#projectsOf(watched);
    const projectsOf = new Map(orgs.map((org) => [org.orgId, org.projectIds]));
    const crossed = await this.#db.transaction(async (tx) => {
      const rows = await this.#quotas.crossings(tx, storage.QUOTA_WARNING_SHARE, orgs);
      await writeOutbox(
        tx,
        rows.flatMap(({ orgId, ...row }) =>
          (projectsOf.get(orgId) ?? []).map((projectId) => {
            const percent = Math.round((row.storedBytes / Math.max(1, row.quotaBytes)) * 1000) / 10;
            const event: storage.QuotaWarning = { projectId, scope: 'org', orgId, ...row, percent };
            return { subject: storage.quotaWarning.subject, id: randomUUID(), data: event };
          }),
        ),
      );
      return rows.length;
    });
    if (crossed > 0) this.#onWarned();
    return crossed;
  }

  /**
   * Gauges of the orgs with a quota, read at each scrape: their projects' folded stored bytes together
   * and the quota. Other orgs have none: the per-project gauges add up to theirs, and listing every
   * org's projects at each scrape would cost a bus call per org.
   */
  observeGauges(): () => void {
    const gauges = {
      stored: { name: 'lode.org_usage.stored_bytes', description: "An org's projects' stored bytes together, as last folded (orgs with a quota)" },
      quota: { name: 'lode.org_quota.bytes', description: 'The org quota that applies (orgs with a quota)' },
    };
    return observeGauges(gauges, async (observe) => {
      const orgs = await this.#projectsOf(await this.#quotas.watched(this.#db));
      for (const org of await this.#quotas.foldedTotals(this.#db, orgs)) {
        if (org.quotaBytes === null) continue;
        const attributes = { 'lode.org_id': org.orgId };
        observe('stored', org.storedBytes, attributes);
        observe('quota', org.quotaBytes, attributes);
      }
    });
  }

  /** The orgs' projects as lately read; an org the identity service cannot list now (gone, or unreachable) is left out, for next time. */
  async #projectsOf(orgIds: readonly string[]): Promise<OrgProjects[]> {
    const listed = await Promise.allSettled(orgIds.map(async (orgId) => ({ orgId, projectIds: await this.#directory.projectIdsOf(orgId) })));
    return listed.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  }
}
