import { createHash, randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { managesOrg, retention, type Actor } from '@lode/contracts';
import { CursorCodec, type Database } from '@lode/db';
import { writeOutbox } from '@lode/outbox';
import type { PolicyRow, RetentionRepository } from '../repo/retention-repo.ts';
import type { VersionPurger } from './version-purge.ts';
import type { BatchPlan, RetentionEvaluator } from './retention-evaluator.ts';
import { idOfPosition, planDigest } from './obliterate-plan.ts';
import {
  compileRules,
  PlanTally,
  retentionClaimsOf,
  retentionTokenPosition,
  wholePlanDigest,
  type CompiledRule,
  type RetentionClaims,
} from './retention-plan.ts';

type Purger = { userId: string; userName: string };

/**
 * Retention (docs/storage.md): an org's owners and admins set rules per project; the periodic job
 * applies them, and a dry run answers what they would remove now with a token that a run confirms.
 * Each batch of files is purged in its own transaction under the project's purge lock, exactly as
 * an obliteration purges: the versions keep their rows (history shows the rule that removed them),
 * usage drops with them, and the objects nothing else uses are left to the collector.
 */
export class RetentionService {
  readonly #db: Database;
  readonly #repo: RetentionRepository;
  readonly #evaluator: RetentionEvaluator;
  readonly #purger: VersionPurger;
  readonly #tokens: CursorCodec;
  readonly #onApplied: () => void;

  constructor(deps: {
    db: Database;
    retention: RetentionRepository;
    evaluator: RetentionEvaluator;
    purger: VersionPurger;
    secret: string;
    onApplied: () => void;
  }) {
    this.#db = deps.db;
    this.#repo = deps.retention;
    this.#evaluator = deps.evaluator;
    this.#purger = deps.purger;
    // A key of its own, derived from the service's secret: no other signed value is a retention token.
    this.#tokens = new CursorCodec(createHash('sha256').update(`lode.retention\u0000${deps.secret}`).digest('base64url'));
    this.#onApplied = deps.onApplied;
  }

  async get(actor: Actor): Promise<retention.RetentionReply> {
    return replyOf(await this.#repo.policy(this.#db, actor.projectId));
  }

  async set(actor: Actor, rules: readonly retention.RetentionRule[]): Promise<retention.RetentionReply> {
    if (!managesOrg(actor.role)) throw errors.forbidden('Only org owners and admins may set retention rules');
    return replyOf(await this.#repo.setPolicy(this.#db, actor.projectId, rules, { userId: actor.userId, userName: actor.userName }));
  }

  /** What the rules remove now, and the token that confirms exactly that for 15 minutes. */
  async dryRun(actor: Actor): Promise<retention.RetentionPlan> {
    this.#assertManages(actor);
    const { projectId } = actor;
    const asOfMs = Date.now();
    const tally = new PlanTally();
    for await (const batch of this.#evaluator.batches(projectId, await this.#rules(projectId), asOfMs)) {
      tally.add(batch.versions, await this.#purger.kept(this.#db, projectId, batch.versions), batch.lockedFiles);
    }
    const claims: RetentionClaims = { projectId, asOfMs, digest: tally.digest, expiresAtMs: asOfMs + retention.RETENTION_TOKEN_TTL_MS };
    // Nothing to remove is nothing to confirm.
    const token = tally.versionCount === 0 ? null : this.#tokens.encode(retentionTokenPosition(claims));
    return {
      dryRun: true,
      runId: idOfPosition(retentionTokenPosition(claims)),
      ...tally.figures(),
      confirmToken: token,
      expiresAt: token === null ? null : new Date(claims.expiresAtMs).toISOString(),
      appliedAt: null,
    };
  }

  /**
   * Removes what the dry run listed: the whole plan is evaluated again (as of the dry run's instant)
   * and must be the one the token signs; then each batch is evaluated once more and purged only if
   * it is still its part of that plan. A batch that changed in between stops the run there (409);
   * the batches before it stay removed, and the reply's message says so.
   */
  async run(actor: Actor, confirmToken: string): Promise<retention.RetentionPlan> {
    this.#assertManages(actor);
    const { projectId } = actor;
    const claims = this.#claims(confirmToken, projectId);
    if (Date.now() > claims.expiresAtMs) throw errors.conflict('The confirmToken has expired: run a dry run again', { reason: 'expired' });
    const rules = await this.#rules(projectId);
    const planned: { afterKey: string; throughKey: string; digest: string }[] = [];
    for await (const { afterKey, throughKey, versions } of this.#evaluator.batches(projectId, rules, claims.asOfMs)) {
      // Only each batch's range and digest are kept: a plan of millions of versions is never held whole.
      if (versions.length > 0) planned.push({ afterKey, throughKey, digest: planDigest(versions.map((v) => v.id)) });
    }
    if (planned.length === 0 || wholePlanDigest(planned.map((batch) => batch.digest)) !== claims.digest) throw planChanged(0);
    const runId = idOfPosition(retentionTokenPosition(claims));
    const by = { userId: actor.userId, userName: actor.userName };
    const tally = new PlanTally();
    for (const expected of planned) {
      const batch = await this.#evaluator.batch(projectId, rules, claims.asOfMs, expected);
      if (planDigest(batch.versions.map((v) => v.id)) !== expected.digest) {
        await this.#finish(projectId, runId, 'run', by, tally);
        throw planChanged(tally.versionCount);
      }
      await this.#apply(projectId, runId, by, batch, tally);
    }
    return { dryRun: false, runId, ...tally.figures(), confirmToken: null, expiresAt: null, appliedAt: await this.#finish(projectId, runId, 'run', by, tally) };
  }

  /**
   * The periodic job: applies the rules of every project last claimed an interval ago, one
   * project at a time, each claimed so that replicas running it at once take different projects.
   * Answers how many projects it ran.
   */
  async runDue(intervalMs: number): Promise<number> {
    let projects = 0;
    const passStartedAt = new Date();
    for (;;) {
      const due = await this.#repo.claimDue(this.#db, intervalMs, passStartedAt);
      if (!due) return projects;
      projects += 1;
      const runId = randomUUID();
      const tally = new PlanTally();
      for await (const batch of this.#evaluator.batches(due.projectId, compileRules(due.rules), Date.now())) {
        await this.#apply(due.projectId, runId, null, batch, tally);
      }
      await this.#finish(due.projectId, runId, 'schedule', null, tally);
    }
  }

  /** Purges one batch's versions in its own transaction, adding what it did to the tally. */
  async #apply(projectId: string, runId: string, by: Purger | null, batch: BatchPlan, tally: PlanTally): Promise<void> {
    const { versions } = batch;
    if (versions.length === 0) {
      tally.add([], new Set(), batch.lockedFiles);
      return;
    }
    const { kept } = await this.#db.transaction(async (tx) => {
      await this.#purger.lock(tx, projectId, [...new Set(versions.map((v) => v.fileId))]);
      return this.#purger.purge(tx, projectId, versions, { reason: 'retention', by, purgeId: runId, rules: versions.map((v) => v.rule) });
    });
    tally.add(versions, kept, batch.lockedFiles);
  }

  /**
   * Records when the rules were last applied and, when the run removed anything, writes its
   * `retention.applied` event, in one transaction; answers when the run finished.
   */
  async #finish(projectId: string, runId: string, trigger: 'run' | 'schedule', by: Purger | null, tally: PlanTally): Promise<string> {
    const appliedAt = new Date().toISOString();
    const { versionCount, fileCount, logicalBytes, freedObjects, freedBytes, lockedFiles } = tally;
    const event: retention.RetentionApplied = {
      projectId,
      runId,
      trigger,
      by,
      versionCount,
      fileCount,
      logicalBytes,
      freedObjects,
      freedBytes,
      lockedFiles,
      appliedAt,
    };
    await this.#db.transaction(async (tx) => {
      await this.#repo.markApplied(tx, projectId, appliedAt);
      if (versionCount > 0) await writeOutbox(tx, [{ subject: retention.retentionApplied.subject, id: runId, data: event }]);
    });
    if (versionCount > 0) this.#onApplied();
    return appliedAt;
  }

  async #rules(projectId: string): Promise<CompiledRule[]> {
    return compileRules((await this.#repo.policy(this.#db, projectId))?.rules ?? []);
  }

  #assertManages(actor: Actor): void {
    if (!managesOrg(actor.role)) throw errors.forbidden('Only org owners and admins may apply retention rules');
  }

  /** The token's claims, if it was signed here for this project: a forged, foreign or mangled token is 403. */
  #claims(token: string, projectId: string): RetentionClaims {
    let claims: RetentionClaims | undefined;
    try {
      claims = retentionClaimsOf(this.#tokens.decode(token));
    } catch {
      claims = undefined;
    }
    if (claims?.projectId !== projectId) {
      throw errors.forbidden("The confirmToken is not a retention dry run's token for this project: run a dry run and send back its confirmToken");
    }
    return claims;
  }
}

/** The run stopped because its plan changed; `removedVersions` says how many of it were removed before (they stay removed). */
function planChanged(removedVersions: number): Error {
  const done = removedVersions === 0 ? '' : ` (${removedVersions} versions of the plan were removed before it changed)`;
  return errors.conflict(`What the retention rules remove changed since the dry run${done}: run a dry run again and confirm its plan`, {
    reason: 'plan_changed',
    removedVersions,
  });
}

function replyOf(row: PolicyRow | undefined): retention.RetentionReply {
  if (!row) return { rules: [], updatedAt: null, updatedBy: null, lastRunAt: null };
  return { rules: row.rules, updatedAt: row.updatedAt, updatedBy: { userId: row.updatedBy, userName: row.updatedByName }, lastRunAt: row.lastRunAt };
}
