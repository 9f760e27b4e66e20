import { createHash } from 'node:crypto';
import { pathKey, retention } from '@lode/contracts';
import { objectsFreed, planDigest, type PlannedVersion } from './obliterate-plan.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A rule ready to match path keys. */
export interface CompiledRule {
  glob: string;
  pattern: RegExp;
  keepLast: number | undefined;
  keepDays: number | undefined;
}

/**
 * What the rules matching one path keep, merged: a version goes only if every matching rule lets it
 * go, so the largest keepLast and the largest keepDays of them decide (0: that bound keeps nothing).
 * `rule` names the first matching rule, as history shows it.
 */
export interface FilePolicy {
  rule: string;
  keepLast: number;
  keepDays: number;
}

/** One segment of a glob as a pattern: `*` is any run of characters but `/`, `?` one of them. */
function segmentPattern(segment: string): string {
  return segment
    .split('')
    .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
}

/**
 * A glob (checked by retention.globIssue) as a pattern over path keys: folded as paths are, so it
 * matches whatever case a path has. A `**` segment is any number of segments; a trailing one, at least one.
 */
export function compileGlob(glob: string): RegExp {
  const segments = pathKey(glob.normalize('NFC')).split('/');
  let source = '';
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') source += last ? '.+' : '(?:[^/]+/)*';
    else source += segmentPattern(segment) + (last ? '' : '/');
  });
  return new RegExp(`^${source}$`, 's');
}

export function compileRules(rules: readonly retention.RetentionRule[]): CompiledRule[] {
  return rules.map((rule) => ({ glob: rule.glob, pattern: compileGlob(rule.glob), keepLast: rule.keepLast, keepDays: rule.keepDays }));
}

/** What the rules keep of the file at this path key; undefined when no rule matches it (it is never touched). */
export function policyFor(rules: readonly CompiledRule[], key: string): FilePolicy | undefined {
  let policy: FilePolicy | undefined;
  for (const rule of rules) {
    if (!rule.pattern.test(key)) continue;
    policy ??= { rule: rule.glob, keepLast: 0, keepDays: 0 };
    policy.keepLast = Math.max(policy.keepLast, rule.keepLast ?? 0);
    policy.keepDays = Math.max(policy.keepDays, rule.keepDays ?? 0);
  }
  return policy;
}

/**
 * Whether a live version goes: it is past the newest `keepLast` (`rank` 1 is the newest live
 * version) and older than `keepDays` at `nowMs`.
 */
export function isRemoved(policy: FilePolicy, rank: number, createdAtMs: number, nowMs: number): boolean {
  return rank > policy.keepLast && createdAtMs <= nowMs - policy.keepDays * DAY_MS;
}

/** What a retention confirm token signs: the project, the instant the rules were evaluated at, the plan's digest, and its expiry. */
export interface RetentionClaims {
  projectId: string;
  asOfMs: number;
  digest: string;
  expiresAtMs: number;
}

const TOKEN_KIND = 'retention';

export function retentionTokenPosition(claims: RetentionClaims): (string | number)[] {
  return [TOKEN_KIND, claims.projectId, claims.asOfMs, claims.digest, claims.expiresAtMs];
}

/** The claims a signed token's position holds, or undefined when it is not a retention token's. */
export function retentionClaimsOf(position: readonly (string | number)[]): RetentionClaims | undefined {
  const [kind, projectId, asOfMs, digest, expiresAtMs] = position;
  if (kind !== TOKEN_KIND || position.length !== 5) return undefined;
  if (typeof projectId !== 'string' || typeof digest !== 'string' || typeof asOfMs !== 'number' || typeof expiresAtMs !== 'number') return undefined;
  return { projectId, asOfMs, digest, expiresAtMs };
}

/** A plan's digest, from the digests of its batches that remove anything, in keyset order. */
export function wholePlanDigest(batchDigests: readonly string[]): string {
  return createHash('sha256').update(batchDigests.join('.')).digest('base64url').slice(0, 22);
}

/** The figures of a plan (or a run), added up batch by batch. */
export class PlanTally {
  readonly listed: retention.RetentionVersion[] = [];
  versionCount = 0;
  fileCount = 0;
  logicalBytes = 0;
  freedObjects = 0;
  freedBytes = 0;
  keptObjects = 0;
  lockedFiles = 0;
  readonly batchDigests: string[] = [];

  /** One batch's versions (`kept`: their objects that stay), its files skipped for locks, and its digest when it removes anything. */
  add(versions: readonly (PlannedVersion & { fileId: string; path: string; rule: string })[], kept: ReadonlySet<string>, lockedFiles: number): void {
    this.lockedFiles += lockedFiles;
    if (versions.length === 0) return;
    for (const v of versions.slice(0, retention.MAX_LISTED_RETENTION_VERSIONS - this.listed.length)) {
      const { fileId, path, version, size, sha256, createdAt, rule } = v;
      this.listed.push({ fileId, path, version, size, sha256, createdAt, rule });
    }
    this.versionCount += versions.length;
    this.fileCount += new Set(versions.map((v) => v.fileId)).size;
    this.logicalBytes += versions.reduce((sum, v) => sum + v.size, 0);
    const freed = objectsFreed(versions, kept);
    this.freedObjects += freed.freedObjects;
    this.freedBytes += freed.freedBytes;
    this.keptObjects += freed.keptObjects;
    this.batchDigests.push(planDigest(versions.map((v) => v.id)));
  }

  get digest(): string {
    return wholePlanDigest(this.batchDigests);
  }

  figures(): Omit<retention.RetentionPlan, 'dryRun' | 'runId' | 'confirmToken' | 'expiresAt' | 'appliedAt'> {
    const { listed, versionCount, fileCount, logicalBytes, freedObjects, freedBytes, keptObjects, lockedFiles } = this;
    return {
      versions: listed,
      versionCount,
      versionsTruncated: versionCount > listed.length,
      fileCount,
      logicalBytes,
      freedObjects,
      freedBytes,
      keptObjects,
      lockedFiles,
    };
  }
}
