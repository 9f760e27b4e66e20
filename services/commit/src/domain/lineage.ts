import { MAIN_BRANCH } from '@lode/contracts/commit';

/**
 * One stretch of a lineage: the commits made on `branch` numbered after `after` and up to `through`
 * (null: no end yet). Sequence numbers are per project, across branches.
 */
export interface Segment {
  branch: string;
  after: number;
  through: number | null;
}

/**
 * The commits a branch holds, newest stretch first: its own, then those of the branch it forked
 * from up to the fork, and so on down to main. The segments tile every sequence number from 1 up
 * without overlapping, so each commit number falls in exactly one of them. Kept by value on the
 * branch (branches.lineage), so deleting a branch never changes another's lineage, and a new branch
 * of a reused name starts after the old one's commits (docs/architecture.md, Lineage).
 */
export type Lineage = readonly Segment[];

/** Main's lineage: every commit made on main. Main is never deleted, so this is all of it. */
export const MAIN_LINEAGE: Lineage = [{ branch: MAIN_BRANCH, after: 0, through: null }];

/**
 * The lineage of a branch forked from `parent` when the project's last sequence number was `at`:
 * its own commits come after `at`, the parent's count up to `at`.
 */
export function forkLineage(name: string, parent: Lineage, at: number): Segment[] {
  const inherited = parent.flatMap((s) => (s.after >= at ? [] : [{ ...s, through: s.through === null ? at : Math.min(s.through, at) }]));
  return [{ branch: name, after: at, through: null }, ...inherited];
}

/** Whether commit number `seq`, made on `branch`, is on the lineage. */
export function holds(lineage: Lineage, branch: string, seq: number): boolean {
  return lineage.some((s) => s.branch === branch && seq > s.after && (s.through === null || seq <= s.through));
}

/**
 * The fork point of two lineages: the last sequence number up to which they hold the same commits
 * (0 when they share none). Both lineages tile the sequence numbers, and below a segment the two
 * share, both continue with that branch's own lineage, so what they share is exactly the numbers up
 * to this point. Two segments of one name that overlap are one branch: a reused name starts after
 * every number its predecessor's segments reach.
 */
export function forkPoint(a: Lineage, b: Lineage): number {
  let point = 0;
  for (const x of a) {
    for (const y of b) {
      if (x.branch !== y.branch) continue;
      const from = Math.max(x.after, y.after);
      const to = Math.min(x.through ?? Infinity, y.through ?? Infinity);
      if (to > from) point = Math.max(point, to);
    }
  }
  return point;
}

/** Main as a commit creates it, whichever commit that is: forked from no branch, with no creator. */
export const MAIN_BY_COMMIT = { forkedFrom: null, createdAfter: 0, lineage: MAIN_LINEAGE, createdBy: null } as const;

/**
 * How a branch that does not exist is created by a commit numbered `seq` to it: main as itself (it
 * has no creator), another forked from main's head, created by the committer.
 */
export function createdByCommit<A>(
  name: string,
  seq: number,
  committer: A,
): { forkedFrom: string | null; createdAfter: number; lineage: Lineage; createdBy: A | null } {
  if (name === MAIN_BRANCH) return MAIN_BY_COMMIT;
  return { forkedFrom: MAIN_BRANCH, createdAfter: seq - 1, lineage: forkLineage(name, MAIN_LINEAGE, seq - 1), createdBy: committer };
}
