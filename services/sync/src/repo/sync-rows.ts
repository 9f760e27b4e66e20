/** The rows two of the sync service's repositories share: repositories never import each other. */

/** Commits of `branch` numbered after `after` and up to `through` (null: no end). */
export interface Segment {
  branch: string;
  after: number;
  through: number | null;
}

/** The branch whose tree a sync reads, and the commits its history includes (its lineage). */
export interface Lineage {
  branch: string;
  segments: readonly Segment[];
}

/** Staged entries with file ids in (after, through]: one batch of an apply, in the primary key's order. */
export interface StagedRange {
  after: string;
  through: string;
}

/** The branch whose tree a name reads, and which incarnation of it (a deleted and re-created branch is another). */
export interface Incarnation {
  branch: string;
  generation: string;
}
