import { createHash } from 'node:crypto';
import { errors } from '@lode/errors';
import { managesOrg, normalizePath, storage, type Actor } from '@lode/contracts';
import { CursorCodec, type Database, type Queryable } from '@lode/db';
import { writeOutbox } from '@lode/outbox';
import type { FileRow, ObliterateRepository } from '../repo/obliterate-repo.ts';
import type { VersionPurger } from './version-purge.ts';
import {
  claimsOf,
  listedVersions,
  objectsFreed,
  obliterationIdOf,
  planDigest,
  tokenPosition,
  type PlannedVersion,
  type TokenClaims,
} from './obliterate-plan.ts';

type ObliterateRequest = storage.ObliterateBody & { actor: Actor };
type Reply = storage.ObliterateReply;

/**
 * Obliterate (docs/storage.md): an org's owners and admins remove a file's versions, or one version,
 * for good. A dry run answers the plan (the live versions, their bytes, the objects it frees) and a
 * token signing exactly that plan for 15 minutes; the run purges those versions only if the plan is
 * still the same. Purged versions keep their rows (history shows them removed, numbers are never
 * reused); their objects are deleted by the collector, never here, once nothing else uses them.
 */
export class Obliterator {
  readonly #db: Database;
  readonly #repo: ObliterateRepository;
  readonly #purger: VersionPurger;
  readonly #tokens: CursorCodec;
  readonly #onObliterated: () => void;

  constructor(deps: { db: Database; obliterations: ObliterateRepository; purger: VersionPurger; secret: string; onObliterated: () => void }) {
    this.#db = deps.db;
    this.#repo = deps.obliterations;
    this.#purger = deps.purger;
    // A key of its own, derived from the service's secret: a signed cursor is never a confirm token.
    this.#tokens = new CursorCodec(createHash('sha256').update(`lode.obliterate\u0000${deps.secret}`).digest('base64url'));
    this.#onObliterated = deps.onObliterated;
  }

  async obliterate(request: ObliterateRequest): Promise<Reply> {
    const { actor } = request;
    if (!managesOrg(actor.role)) throw errors.forbidden('Only org owners and admins may obliterate files');
    const file = await this.#target(actor.projectId, request);
    const version = request.version ?? null;
    if (request.dryRun) return this.#plan(actor.projectId, file, version);
    const claims = this.#claims(request.confirmToken ?? '', { projectId: actor.projectId, fileId: file.id, version: version ?? 0 });
    const reply = await this.#db.transaction((tx) => this.#run(tx, actor, file, claims));
    this.#onObliterated();
    return reply;
  }

  /** Which of these (file, version) pairs are purged, in order: for the commit service's downloads and history. */
  async purges(projectId: string, fileIds: readonly string[], versions: readonly number[]): Promise<(storage.Purge | null)[]> {
    const found = fileIds.length === 0 ? [] : await this.#repo.purges(this.#db, projectId, fileIds, versions);
    const purges = new Array<storage.Purge | null>(fileIds.length).fill(null);
    for (const { n, at, userId, userName, reason, rule } of found) {
      purges[n - 1] = { at, by: userId === null ? null : { userId, userName: userName ?? '' }, reason, ...(rule === null ? {} : { rule }) };
    }
    return purges;
  }

  async #target(projectId: string, request: ObliterateRequest): Promise<FileRow> {
    let file: FileRow | undefined;
    if (request.path !== undefined) {
      const path = normalizePath(request.path);
      if (!('key' in path)) throw path;
      file = await this.#repo.fileByPath(this.#db, projectId, path.key);
    } else if (request.fileId !== undefined) {
      file = await this.#repo.fileById(this.#db, projectId, request.fileId);
    }
    if (!file) throw errors.notFound('File');
    if (request.version !== undefined && !(await this.#repo.versionExists(this.#db, projectId, file.id, request.version))) {
      throw errors.notFound(`Version ${request.version} of this file`);
    }
    return file;
  }

  /** The dry run: what the run would purge and free now, and the token that confirms exactly that. */
  async #plan(projectId: string, file: FileRow, version: number | null): Promise<Reply> {
    const live = await this.#repo.liveVersions(this.#db, projectId, file.id, version);
    const kept = await this.#purger.kept(this.#db, projectId, live);
    const claims: TokenClaims = {
      projectId,
      fileId: file.id,
      version: version ?? 0,
      digest: planDigest(live.map((v) => v.id)),
      expiresAtMs: Date.now() + storage.OBLITERATE_TOKEN_TTL_MS,
    };
    // Nothing live is nothing to confirm: the run would be refused.
    const token = live.length === 0 ? null : this.#tokens.encode(tokenPosition(claims));
    return {
      dryRun: true,
      obliterationId: obliterationIdOf(claims),
      fileId: file.id,
      path: file.path,
      ...listedVersions(live),
      ...objectsFreed(live, kept),
      confirmToken: token,
      expiresAt: token === null ? null : new Date(claims.expiresAtMs).toISOString(),
      obliteratedAt: null,
    };
  }

  /**
   * The run, in one transaction: one obliteration of the project at a time, the file's row locked
   * (a confirm or restore of the file waits), then the plan checked against the token, the versions
   * purged with the usage delta, and the event written.
   */
  async #run(tx: Queryable, actor: Actor, file: FileRow, claims: TokenClaims): Promise<Reply> {
    const { projectId } = actor;
    await this.#purger.lock(tx, projectId, [file.id]);
    const obliterationId = obliterationIdOf(claims);
    const done = await this.#repo.purgedBy(tx, projectId, obliterationId);
    // A retried run (its answer lost) answers what it did.
    if (done.length > 0) return this.#done(tx, projectId, file, obliterationId, done, done[0].purgedAt);
    if (Date.now() > claims.expiresAtMs) throw errors.conflict('The confirmToken has expired: run a dry run again', { reason: 'expired' });
    const live = await this.#repo.liveVersions(tx, projectId, file.id, claims.version === 0 ? null : claims.version);
    if (live.length === 0 || planDigest(live.map((v) => v.id)) !== claims.digest) {
      throw errors.conflict('The versions to obliterate changed since the dry run: run a dry run again and confirm its plan', { reason: 'plan_changed' });
    }
    const by = { userId: actor.userId, userName: actor.userName };
    const { at, kept } = await this.#purger.purge(tx, projectId, live, { reason: 'obliterate', by, purgeId: obliterationId });
    const reply = this.#reply(file, obliterationId, live, kept, at);
    const event: storage.FileObliterated = {
      projectId,
      obliterationId,
      fileId: file.id,
      path: file.path,
      versions: reply.versions.map((v) => v.version),
      versionCount: reply.versionCount,
      logicalBytes: reply.logicalBytes,
      freedBytes: reply.freedBytes,
      by: { userId: actor.userId, userName: actor.userName },
      obliteratedAt: at,
    };
    await writeOutbox(tx, [{ subject: storage.fileObliterated.subject, id: obliterationId, data: event }]);
    return reply;
  }

  async #done(tx: Queryable, projectId: string, file: FileRow, obliterationId: string, purged: readonly PlannedVersion[], at: string): Promise<Reply> {
    return this.#reply(file, obliterationId, purged, await this.#purger.kept(tx, projectId, purged), at);
  }

  #reply(file: FileRow, obliterationId: string, versions: readonly PlannedVersion[], kept: ReadonlySet<string>, at: string): Reply {
    return {
      dryRun: false,
      obliterationId,
      fileId: file.id,
      path: file.path,
      ...listedVersions(versions),
      ...objectsFreed(versions, kept),
      confirmToken: null,
      expiresAt: null,
      obliteratedAt: at,
    };
  }

  /** The token's claims, if it was signed here for this project's target: a forged, foreign or mangled token is 403. */
  #claims(token: string, target: Pick<TokenClaims, 'projectId' | 'fileId' | 'version'>): TokenClaims {
    let claims: TokenClaims | undefined;
    try {
      claims = claimsOf(this.#tokens.decode(token));
    } catch {
      claims = undefined;
    }
    if (!claims || claims.projectId !== target.projectId || claims.fileId !== target.fileId || claims.version !== target.version) {
      throw errors.forbidden('The confirmToken is not a dry run token for this obliteration: run a dry run and send back its confirmToken');
    }
    return claims;
  }
}
