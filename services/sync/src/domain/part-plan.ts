/** How far the read model holds a project: whole commits up to appliedSeq, and parts of the next one. */
export interface Progress {
  appliedSeq: number;
  /** The commit whose first pendingPart parts are staged, if any. */
  pendingSeq: number | null;
  pendingPart: number;
  /** How many of the project's branch changes (branch.changed) are applied. */
  appliedChanges: number;
}

export interface Part {
  sequenceNum: number;
  part: number;
  parts: number;
  /** The project's branch changes made before the commit (absent from older events: none awaited). */
  branchChanges?: number;
}

export interface PartPlan {
  /**
   * skip: already applied (a redelivery) or unusable; stage: keep it for later; apply: the commit is
   * complete; defer: it came ahead of parts that are still on their way, so it waits for them.
   */
  action: 'skip' | 'stage' | 'apply' | 'defer';
  /** Staged parts of an earlier commit that can never complete: thrown away first. */
  discardStaged: boolean;
  /** Events the stream lost, for an error log: the read model of the project is incomplete from here. */
  problems: string[];
}

/**
 * What to do with one part of a commit.created event. A project's events are published in sequence
 * order and sequence numbers have no gaps, so a part is new exactly when it is the next one; an
 * older one is a redelivery and is skipped, which makes applying idempotent. A part further ahead
 * came early: another replica holds the ones before it, or they wait to be redelivered. It is
 * deferred until they are applied, unless `earlierSettled` (every event stored before it has been
 * handled) says they were lost (beyond the stream's retention): then it is applied all the same, so
 * the read model keeps moving, and the loss is reported. A commit also waits for the branch changes
 * made before it (a branch created from another at the commit before it must be copied first), which
 * come through their own consumer (branch-change-plan.ts).
 */
export function planPart(progress: Progress, event: Part, earlierSettled: boolean): PartPlan {
  const { appliedSeq, pendingSeq, pendingPart } = progress;
  const { sequenceNum: seq, part, parts } = event;
  const complete = part === parts ? 'apply' : 'stage';
  if (seq <= appliedSeq || (seq === pendingSeq && part <= pendingPart)) return { action: 'skip', discardStaged: false, problems: [] };
  if (event.branchChanges !== undefined && progress.appliedChanges < event.branchChanges) return { action: 'defer', discardStaged: false, problems: [] };
  const next = pendingSeq === null ? { seq: appliedSeq + 1, part: 1 } : { seq: pendingSeq, part: pendingPart + 1 };
  if (seq === next.seq && part === next.part) return { action: complete, discardStaged: false, problems: [] };
  if (!earlierSettled) return { action: 'defer', discardStaged: false, problems: [] };
  if (part !== 1) {
    return { action: 'skip', discardStaged: false, problems: [`part ${part} of commit ${seq} arrived without the parts before it; the commit is skipped`] };
  }
  const problems: string[] = [];
  if (pendingSeq !== null) problems.push(`commit ${pendingSeq} never received its last parts; its staged parts are discarded`);
  const firstLost = (pendingSeq ?? appliedSeq) + 1;
  if (seq > firstLost)
    problems.push(seq - 1 === firstLost ? `commit ${firstLost} was never received` : `commits ${firstLost} to ${seq - 1} were never received`);
  return { action: complete, discardStaged: pendingSeq !== null, problems };
}
