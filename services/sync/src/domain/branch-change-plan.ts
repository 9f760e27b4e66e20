/** How far the read model holds a project, as a branch change needs it. */
export interface BranchProgress {
  /** Every commit up to this sequence number is applied. */
  appliedSeq: number;
  /** How many of the project's branch changes are applied. */
  appliedChanges: number;
}

export interface BranchChangePlan {
  /** skip: applied already (a redelivery); apply: its turn; defer: what comes before it is not applied yet. */
  action: 'skip' | 'apply' | 'defer';
  /** Events the streams lost, for an error log: the read model of the project is incomplete from here. */
  problems: string[];
}

/**
 * What to do with a branch.changed event. The project's branch changes are numbered 1, 2, 3… and
 * each happened between commit `afterSeq` and the next, so it is applied exactly when the change
 * before it is applied and the project's commits up to `afterSeq` are too (the commits after it
 * wait for it: their events count the changes before them). A creation then copies its parent's
 * tree as it stood at the fork. A change whose predecessor is missing while every earlier
 * branch.changed has been handled (`earlierSettled`) can only follow a lost one: applied all the
 * same, and the loss reported.
 */
export function planBranchChange(progress: BranchProgress, event: { change: number; afterSeq: number }, earlierSettled: boolean): BranchChangePlan {
  const { appliedSeq, appliedChanges } = progress;
  if (event.change <= appliedChanges) return { action: 'skip', problems: [] };
  if (appliedSeq < event.afterSeq) return { action: 'defer', problems: [] };
  const problems: string[] = [];
  if (event.change > appliedChanges + 1) {
    if (!earlierSettled) return { action: 'defer', problems: [] };
    const [first, last] = [appliedChanges + 1, event.change - 1];
    problems.push(first === last ? `branch change ${first} was never received` : `branch changes ${first} to ${last} were never received`);
  }
  if (appliedSeq > event.afterSeq) problems.push(`branch change ${event.change} came after commit ${event.afterSeq + 1}, which should have waited for it`);
  return { action: 'apply', problems };
}
