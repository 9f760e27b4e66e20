import { randomUUID } from 'node:crypto';
import { chunk, LodeApiError, type LodeClient, type SyncFile, type SyncRow } from '@lode/sdk';
import { compareIncrementally, SYNC_BATCH, syncFiles, type ListedFiles } from './incremental-status.ts';
import { loadRemoteTree, replaceRemoteTree, saveRemoteTree, treeFromRows, type RemoteTree, type TreeScope } from './remote-tree.ts';
import { mergeInPathOrder, unchangedOf, type UnchangedFiles } from './listed-files.ts';
import type { HashedEntry } from './scan.ts';
import type { Workspace } from './workspace.ts';

export interface BranchComparison {
  /** POST /sync's rows with includeRemoteOnly: one per file of `hashed`, then the remote-only ones. */
  rows: SyncRow[];
  /** The listed files as hashed (cache first), all but `unchanged`. */
  hashed: HashedEntry[];
  /** Listed files as the workspace last synced them at the tip: up to date, no row made (incremental-status.ts). */
  unchanged: UnchangedFiles;
  latestCommitSeq: number;
  /** The record of the branch as it now stands on disk, when the branch is the workspace's. */
  tree?: RemoteTree;
}

/**
 * Compares the listed files with `branch` as POST /sync does. With a record of the branch's tree
 * (remote-tree.ts) kept for the workspace's branch, it asks only what changed since and about the
 * files that differ from the tip; otherwise, with `full`, or when the server cannot answer from the
 * record, the whole workspace goes to POST /sync and the record is made again from the answer.
 */
export async function compareWithBranch(
  client: LodeClient,
  workspace: Workspace,
  branch: string,
  listed: ListedFiles,
  options: { signal?: AbortSignal; full?: boolean } = {},
): Promise<BranchComparison> {
  const { signal } = options;
  // Only the branch the workspace follows is recorded: a look at another would replace its record.
  const recorded = branch === workspace.state.branch;
  const scope: TreeScope = { server: client.transport.baseUrl, projectId: await client.projectId({ signal }), branch };
  const tree = recorded && !options.full ? loadRemoteTree(workspace, scope) : undefined;
  if (tree) {
    const answer = await compareIncrementally(client, workspace.index, tree, listed, signal);
    if (answer) {
      if (answer.changed) saveRemoteTree(workspace, tree);
      return { rows: answer.rows, hashed: answer.hashed, unchanged: answer.unchanged, latestCommitSeq: answer.latestCommitSeq, tree };
    }
  }
  const all = listed.quiet ? mergeInPathOrder(listed.entries, listed.quiet.entries()) : listed.entries;
  const hashed = await listed.hash(all, unchangedOf([]));
  const files = syncFiles(workspace.index, hashed);
  // The branch's generation before its files: were it created again meanwhile, the record names the
  // old one and the next status is told to compare in full, never diffed against the wrong tree.
  const generation = recorded ? await branchGeneration(client, branch, signal) : undefined;
  const { rows, latestCommitSeq, oldestSeq } = await compareInFull(client, branch, files, signal);
  if (generation === undefined) return { rows, hashed, unchanged: unchangedOf([]), latestCommitSeq };
  const hashes = new Map(files.map((file) => [file.path, file.sha256]));
  // Each batch is its own snapshot: from the oldest, the changes since bring them all to one.
  const made = replaceRemoteTree(
    workspace,
    scope,
    generation,
    oldestSeq,
    treeFromRows(rows, (path) => hashes.get(path)),
  );
  return { rows, hashed, unchanged: unchangedOf([]), latestCommitSeq, tree: made };
}

/**
 * The branch's generation (GET /changes), or undefined when there is none to record: a branch not
 * created yet (its first push makes it), or a server without the route. Any other failure is the
 * command's, as it would be of the comparison that follows.
 */
async function branchGeneration(client: LodeClient, branch: string, signal?: AbortSignal): Promise<string | undefined> {
  return client.changes({ branch, since: 0, limit: 1 }, { signal }).then(
    (page) => page.generation,
    (error: unknown) => {
      if (error instanceof LodeApiError && error.status === 404) return undefined;
      throw error;
    },
  );
}

/** Every listed file in batches of one session, the last listing the remote-only files. */
async function compareInFull(client: LodeClient, branch: string, files: readonly SyncFile[], signal?: AbortSignal) {
  const batches = files.length === 0 ? [[]] : chunk([...files], SYNC_BATCH);
  const session = batches.length > 1 ? randomUUID() : undefined;
  const rows: SyncRow[] = [];
  let latestCommitSeq = 0;
  let oldestSeq = Number.MAX_SAFE_INTEGER;
  // Every batch but the last may go in any order; the last (includeRemoteOnly) must come after them all.
  for (const [index, batch] of batches.entries()) {
    const last = index === batches.length - 1;
    const answer = await client.sync(
      { files: batch, branch, includeRemoteOnly: last || undefined, session: session ? { id: session, batch: index } : undefined },
      { signal },
    );
    rows.push(...answer.files);
    latestCommitSeq = Math.max(latestCommitSeq, answer.latestCommitSeq);
    oldestSeq = Math.min(oldestSeq, answer.latestCommitSeq);
  }
  return { rows, latestCommitSeq, oldestSeq };
}
