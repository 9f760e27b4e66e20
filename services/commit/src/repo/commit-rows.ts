/** The rows two of the commit service's repositories share: repositories never import each other. */
import type { commit } from '@lode/contracts';

/** The namespace of a commit's idempotency claim (libs/db tryClaimIdempotencyKey), whichever statement takes it. */
export const COMMIT_CLAIM_NAMESPACE = 'lode.idem';

/** A commit's outcome as recorded under its idempotency key, and the fingerprint of the request that made it. */
export interface StoredOutcome {
  requestHash: string;
  response: commit.Commit;
}

/** A commit as written, whole (CommitsRepository.record) or from a draft (StagedCommitsRepository.recordCommit). */
export interface NewCommit {
  id: string;
  projectId: string;
  sequenceNum: number;
  branch: string;
  message: string;
  authorId: string;
  authorName: string;
  fileCount: number;
  kind: commit.CommitKind;
}

/** A live file of a branch's tree, as the tree's pages and a folder's listing both answer it. */
export type TreePageRow = commit.TreeFile;
