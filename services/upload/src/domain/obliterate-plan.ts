import { createHash } from 'node:crypto';
import { storage } from '@lode/contracts';

/** A live version in an obliteration's plan. */
export interface PlannedVersion {
  id: string;
  version: number;
  size: number;
  sha256: string;
  storageKey: string;
  createdAt: string;
}

/** What a confirm token signs: the project, the target, the plan's exact versions and when it stops being good. */
export interface TokenClaims {
  projectId: string;
  fileId: string;
  /** 0: every version of the file. */
  version: number;
  digest: string;
  expiresAtMs: number;
}

const TOKEN_KIND = 'obliterate';

/** The plan's versions, as a short digest: the same set of versions (in any order) gives the same digest. */
export function planDigest(versionIds: readonly string[]): string {
  return createHash('sha256')
    .update([...versionIds].sort().join(','))
    .digest('base64url')
    .slice(0, 22);
}

export function tokenPosition(claims: TokenClaims): (string | number)[] {
  return [TOKEN_KIND, claims.projectId, claims.fileId, claims.version, claims.digest, claims.expiresAtMs];
}

/** The claims a signed token's position holds, or undefined when it is not an obliteration token's. */
export function claimsOf(position: readonly (string | number)[]): TokenClaims | undefined {
  const [kind, projectId, fileId, version, digest, expiresAtMs] = position;
  if (kind !== TOKEN_KIND || position.length !== 6) return undefined;
  if (typeof projectId !== 'string' || typeof fileId !== 'string' || typeof digest !== 'string') return undefined;
  if (typeof version !== 'number' || typeof expiresAtMs !== 'number') return undefined;
  return { projectId, fileId, version, digest, expiresAtMs };
}

/**
 * The obliteration's id, from its token's claims: a dry run and the run it confirms share it, and a
 * retried run finds the versions it purged by it.
 */
export function obliterationIdOf(claims: TokenClaims): string {
  return idOfPosition(tokenPosition(claims));
}

/** A token position's id, laid out as a UUID of version 8 (custom): the same position always gives the same id. */
export function idOfPosition(position: readonly (string | number)[]): string {
  const hex = createHash('sha256').update(position.join('\u0000')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((Number.parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** What purging these versions frees: the objects nothing else keeps (`kept`: used by other live versions, or pinned). */
export function objectsFreed(
  versions: readonly PlannedVersion[],
  kept: ReadonlySet<string>,
): { freedObjects: number; freedBytes: number; keptObjects: number } {
  const sizes = new Map(versions.map((v) => [v.storageKey, v.size]));
  let freedObjects = 0;
  let freedBytes = 0;
  for (const [key, size] of sizes) {
    if (kept.has(key)) continue;
    freedObjects += 1;
    freedBytes += size;
  }
  return { freedObjects, freedBytes, keptObjects: sizes.size - freedObjects };
}

/** The plan as a reply lists it: newest first, at most MAX_LISTED_VERSIONS, with the totals of all of them. */
export function listedVersions(
  versions: readonly PlannedVersion[],
): Pick<storage.ObliterateReply, 'versions' | 'versionCount' | 'versionsTruncated' | 'logicalBytes'> {
  const newestFirst = [...versions].sort((a, b) => b.version - a.version);
  return {
    versions: newestFirst.slice(0, storage.MAX_LISTED_VERSIONS).map(({ version, size, sha256, createdAt }) => ({ version, size, sha256, createdAt })),
    versionCount: versions.length,
    versionsTruncated: versions.length > storage.MAX_LISTED_VERSIONS,
    logicalBytes: versions.reduce((sum, v) => sum + v.size, 0),
  };
}
