import { errors } from '@lode/errors';
import { managesOrg, storage, type orgStorage, type ParsedRequestOf } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { UsageFigures, UsageRepository } from '../repo/usage-repo.ts';
import type { OrgDirectory } from './org-directory.ts';
import type { OrgQuotaService } from './org-quota-service.ts';

type OrgUsageRequest = ParsedRequestOf<typeof orgStorage.orgUsage>;

const ZERO: UsageFigures = { logicalBytes: 0, storedBytes: 0, versions: 0, objects: 0 };

/**
 * An org's storage usage (docs/storage.md, Organization usage and quotas): its projects' running
 * totals added up, read for the projects the identity service lists for it, so a read costs a few
 * index probes per project whatever they hold. A deleted project is listed, marked, until its purge,
 * since its storage exists until then; a purged one is not. For the org's owners and admins and the
 * operator.
 */
export class OrgUsageService {
  readonly #db: Database;
  readonly #usage: UsageRepository;
  readonly #directory: OrgDirectory;
  readonly #quotas: OrgQuotaService;

  constructor(deps: { db: Database; usage: UsageRepository; directory: OrgDirectory; quotas: OrgQuotaService }) {
    this.#db = deps.db;
    this.#usage = deps.usage;
    this.#directory = deps.directory;
    this.#quotas = deps.quotas;
  }

  async usage(request: OrgUsageRequest): Promise<orgStorage.OrgUsageReply> {
    const { orgId, caller } = request;
    const role = await this.#directory.roleOf(orgId, caller);
    if (role !== 'operator' && !managesOrg(role)) throw errors.forbidden("Only the organization's owners and admins may read its usage");
    // Read fresh, not from the initiates' cache: a project just made is listed at once.
    const projects = await this.#directory.projects(orgId);
    const ids = projects.map((project) => project.id);
    const [figures, past, day, quota] = await Promise.all([
      this.#usage.figures(this.#db, ids),
      this.#usage.pastDays(this.#db, ids, storage.USAGE_HISTORY_DAYS),
      this.#usage.today(this.#db),
      this.#quotas.limits(orgId),
    ]);
    const byId = new Map(figures.map((row) => [row.projectId, row]));
    const rows = projects
      .map(({ id, name, slug, deletedAt, purgeAfter }) => {
        const { projectId: _id, ...own } = byId.get(id) ?? { projectId: id, ...ZERO };
        return { projectId: id, name, slug, deletedAt, purgeAfter, ...own };
      })
      .sort((a, b) => b.storedBytes - a.storedBytes || b.logicalBytes - a.logicalBytes || a.slug.localeCompare(b.slug));
    const total = rows.reduce(
      (sum, row) => ({
        logicalBytes: sum.logicalBytes + row.logicalBytes,
        storedBytes: sum.storedBytes + row.storedBytes,
        versions: sum.versions + row.versions,
        objects: sum.objects + row.objects,
      }),
      ZERO,
    );
    // Today's point is the figures as of now, folded or not, as a project's.
    return { orgId, ...total, ...quota, projects: rows, history: [...past, { day, ...total }] };
  }
}
