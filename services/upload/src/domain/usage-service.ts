import { normalizePath, storage } from '@lode/contracts';
import type { Database } from '@lode/db';
import { observeGauges } from '@lode/telemetry';
import type { UsageRepository } from '../repo/usage-repo.ts';
import type { CollectableRepository } from '../repo/collectable-repo.ts';

type UsageRequest = { projectId: string; operator: boolean; prefix?: string; by?: 'extension' };

/** How many deltas one fold statement moves: a few milliseconds' work, whatever the backlog. */
const FOLD_BATCH = 5000;

/**
 * Storage usage per project (docs/storage.md, Usage): kept as running totals that the statements
 * changing what a project holds feed with deltas, folded periodically; read as the totals plus what
 * is not folded yet, so a read costs the same whatever the project's size. Breakdowns by prefix and
 * extension are counted on request.
 */
export class UsageService {
  readonly #db: Database;
  readonly #usage: UsageRepository;
  readonly #collectable: CollectableRepository;
  readonly #assertProject: (projectId: string) => Promise<void>;
  readonly #quotaOf: (projectId: string) => Promise<storage.EffectiveQuota | null>;

  constructor(deps: {
    db: Database;
    usage: UsageRepository;
    collectable: CollectableRepository;
    assertProject: (projectId: string) => Promise<void>;
    quotaOf: (projectId: string) => Promise<storage.EffectiveQuota | null>;
  }) {
    this.#db = deps.db;
    this.#usage = deps.usage;
    this.#collectable = deps.collectable;
    this.#assertProject = deps.assertProject;
    this.#quotaOf = deps.quotaOf;
  }

  async usage(request: UsageRequest): Promise<storage.UsageReply> {
    const { projectId } = request;
    const prefix = request.prefix === undefined ? null : prefixOf(request.prefix);
    // A key's project exists; the operator names any id, and an unknown one is 404, not zeros.
    if (request.operator) await this.#assertProject(projectId);
    const [[own], past, day, collectable, quota, underPrefix, extensions] = await Promise.all([
      this.#usage.figures(this.#db, [projectId]),
      this.#usage.pastDays(this.#db, [projectId], storage.USAGE_HISTORY_DAYS),
      this.#usage.today(this.#db),
      this.#collectable.pending(this.#db, projectId),
      this.#quotaOf(projectId),
      prefix === null ? undefined : this.#usage.underPrefix(this.#db, projectId, prefix.key),
      request.by === 'extension' ? this.#usage.byExtension(this.#db, projectId, prefix?.key ?? null, storage.MAX_USAGE_EXTENSIONS) : undefined,
    ]);
    const { projectId: _id, ...figures } = own;
    return {
      projectId,
      ...figures,
      quota,
      collectable,
      // Today's point is the figures as of now, folded or not.
      history: [...past, { day, ...figures }],
      ...(prefix && underPrefix ? { byPrefix: { prefix: prefix.path, ...underPrefix } } : {}),
      ...(extensions ? { byExtension: extensions } : {}),
    };
  }

  /** Folds every delta written so far into the totals, batch by batch; answers how many projects moved. */
  async fold(): Promise<number> {
    let projects = 0;
    for (;;) {
      const folded = await this.#usage.fold(this.#db, FOLD_BATCH);
      projects += folded.length;
      if (folded.length === 0) return projects;
    }
  }

  /** The figures counted from scratch, which usage must equal (a check for tests and operators). */
  async recount(projectId: string): Promise<storage.UsageFigures> {
    return this.#usage.recount(this.#db, projectId);
  }

  /**
   * Per-project gauges of the folded totals, read at each scrape. One series per project and gauge:
   * fine for the projects of one deployment, to be revisited before thousands of projects.
   */
  observeGauges(): () => void {
    const gauges = {
      logical: { name: 'lode.usage.logical_bytes', description: "A project's live versions' bytes, as last folded" },
      stored: { name: 'lode.usage.stored_bytes', description: "A project's distinct objects' bytes in storage, as last folded" },
    };
    return observeGauges(gauges, async (observe) => {
      for (const project of await this.#usage.foldedTotals(this.#db)) {
        const attributes = { 'lode.project_id': project.projectId };
        observe('logical', project.logicalBytes, attributes);
        observe('stored', project.storedBytes, attributes);
      }
    });
  }
}

/** A prefix is a path (a folder, with or without its trailing slash, or a file), checked by the path rules. */
function prefixOf(prefix: string): { path: string; key: string } {
  const normalized = normalizePath(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
  if (!('key' in normalized)) throw normalized;
  return normalized;
}
