/** The rows two of the commit service's repositories share: repositories never import each other. */
import type { commit } from '@lode/contracts';

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
