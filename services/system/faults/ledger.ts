/** A file version as a client knows it once confirm (or a restore) answered. */
export interface KnownVersion {
  fileId: string;
  path: string;
  version: number;
  sha256: string;
}

/** A commit, or a restore's commit, whose 2xx a client received. */
export interface AckedCommit {
  projectId: string;
  id: string;
  sequenceNum: number;
  files: KnownVersion[];
}

/**
 * Every write the system acknowledged, and every one a client attempted, over the whole run: what
 * the checker holds the database and the API to after each scenario.
 */
export class Ledger {
  readonly commits: AckedCommit[] = [];
  readonly confirmed: (KnownVersion & { projectId: string })[] = [];
  /** Commit messages sent, each unique: a commit in the database must be one of them, once. */
  readonly commitMessages = new Set<string>();
  /** X-Idempotency-Keys of restores sent, by project: each makes at most one commit. */
  readonly restoreKeys = new Map<string, Set<string>>();
  /** The locker's files and what its last acknowledged lock call left them. */
  readonly lockState = new Map<string, 'held' | 'free'>();
  /** Files the locker holds for the whole run, which another user keeps trying to commit. */
  readonly guarded: string[] = [];
  lockHolder = '';
  lockProject = '';
  /** Broken rules a client saw in an answer (a commit through another user's lock, a stale read). */
  readonly violations: string[] = [];

  ackCommit(commit: AckedCommit): void {
    this.commits.push(commit);
  }

  ackConfirmed(projectId: string, version: KnownVersion): void {
    this.confirmed.push({ projectId, ...version });
  }

  attemptRestore(projectId: string, key: string): void {
    const keys = this.restoreKeys.get(projectId) ?? new Set<string>();
    keys.add(key);
    this.restoreKeys.set(projectId, keys);
  }

  commitsOf(projectId: string): AckedCommit[] {
    return this.commits.filter((c) => c.projectId === projectId).sort((a, b) => a.sequenceNum - b.sequenceNum);
  }

  latestAcked(projectId: string): number {
    return Math.max(0, ...this.commitsOf(projectId).map((c) => c.sequenceNum));
  }
}
