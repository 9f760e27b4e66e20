import type { branches } from '@lode/contracts';

/** A file's state on one branch's tree; absent when the branch never held it. */
export interface Side {
  version: number;
  sha256: string;
  size: number;
  deleted: boolean;
  /** The commit that last changed the file on that branch's lineage. */
  commitSeq: number;
}

/** A file that changed on at least one side since the fork point, with its state on both. */
export interface Candidate {
  fileId: string;
  path: string;
  source: Side | undefined;
  target: Side | undefined;
  /** The source's version is one the target's lineage has had: the source holds an older state of the target's. */
  sourceKnownToTarget?: boolean;
  /** The target's version is one the source's lineage has had: it came from there (an earlier merge). */
  targetKnownToSource?: boolean;
}

/** What the merge commit does to one file on the target. */
export type Take =
  | { fileId: string; path: string; action: 'delete' }
  /** `newVersion`: the source's version is not newer than the target's, so a new one is made with its content. */
  | { fileId: string; path: string; action: 'set'; version: number; newVersion: boolean };

export interface MergePlan {
  takes: Take[];
  /** Changed on both sides to different states and not resolved; baseVersion is looked up later. */
  conflicts: Omit<branches.Conflict, 'baseVersion'>[];
}

/** Deleted and absent read alike: the file is not there. */
function live(side: Side | undefined): Side | undefined {
  return side && !side.deleted ? side : undefined;
}

/** The same state on both sides: not there on either, or there with the same content, whatever the version numbers. */
function sameState(a: Side | undefined, b: Side | undefined): boolean {
  const [x, y] = [live(a), live(b)];
  if (!x || !y) return !x && !y;
  return x.sha256 === y.sha256 && x.size === y.size;
}

/**
 * Both lineages hold the same commits up to the fork point, so a side changed a file since then
 * when the commit that last changed it there is numbered after it, unless the version it holds is
 * one the other side has had (it came from there, through an earlier merge): versions only increase
 * along a lineage, so that state is behind the other side's, not a change of its own.
 */
function changes(c: Candidate, forkPoint: number): { source: boolean; target: boolean } {
  return {
    source: c.source !== undefined && c.source.commitSeq > forkPoint && !c.sourceKnownToTarget,
    target: c.target !== undefined && c.target.commitSeq > forkPoint && !c.targetKnownToSource,
  };
}

/**
 * The files changed on both sides, per their trees alone, with live versions on both: whether one
 * side's version is known to the other's lineage decides whether they really are (planMerge).
 */
export function changedOnBoth(candidates: readonly Candidate[], forkPoint: number): { fileId: string; sourceVersion: number; targetVersion: number }[] {
  return candidates.flatMap((c) => {
    const [source, target] = [live(c.source), live(c.target)];
    const both = changes(c, forkPoint);
    return both.source && both.target && source && target && !sameState(source, target)
      ? [{ fileId: c.fileId, sourceVersion: source.version, targetVersion: target.version }]
      : [];
  });
}

/**
 * The three-way merge of `source` into `target`, per file, against their fork point (docs/api.md,
 * Merge). Changed on the source only: taken. On the target only, or on both to the same state:
 * nothing to do. On both to different states (a deletion on one side counts): a conflict, unless a
 * resolution names the file. A resolution for any other file changes nothing.
 */
export function planMerge(candidates: readonly Candidate[], forkPoint: number, resolutions: ReadonlyMap<string, 'source' | 'target'>): MergePlan {
  const takes: Take[] = [];
  const conflicts: MergePlan['conflicts'] = [];
  for (const c of candidates) {
    const { source: sourceChanged, target: targetChanged } = changes(c, forkPoint);
    if (!sourceChanged || sameState(c.source, c.target)) continue;
    if (targetChanged) {
      const resolution = resolutions.get(c.fileId);
      if (resolution === 'target') continue;
      if (resolution === undefined) {
        conflicts.push({ fileId: c.fileId, path: c.path, sourceVersion: live(c.source)?.version ?? null, targetVersion: live(c.target)?.version ?? null });
        continue;
      }
    }
    takes.push(take(c));
  }
  return { takes, conflicts };
}

/**
 * The source's state of the file, as the target's next one. Versions only increase on a branch, so
 * a version not newer than the target's (its last one counts even when deleted) becomes a new one.
 */
function take(c: Candidate): Take {
  const source = live(c.source);
  if (!source) return { fileId: c.fileId, path: c.path, action: 'delete' };
  return { fileId: c.fileId, path: c.path, action: 'set', version: source.version, newVersion: c.target !== undefined && c.target.version >= source.version };
}
