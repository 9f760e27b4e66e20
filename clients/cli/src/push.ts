import {
  allPages,
  commitFiles,
  isRefusal,
  movesInParts,
  partCount,
  partSizeFor,
  uploadFiles,
  type CommitCreated,
  type CommitEntry,
  type ContentDigest,
  type FileFailure,
  type Usage,
} from '@lode/sdk';
import type { Context } from './context.ts';
import { CliError, describeLock, EXIT } from './failure.ts';
import { formatBytes, percentUsed, plural } from './output.ts';
import { recordOwnCommit } from './remote-tree.ts';
import { JournalStore, type PendingCommit } from './journal.ts';
import { TransferProgress } from './progress.ts';
import { branchExists, inScope, pathKey, scopedChanges, workspaceStatus, type StatusEntry, type UnstorableFile } from './status.ts';
import type { Workspace } from './workspace.ts';

export interface PushOptions {
  message: string;
  branch?: string;
  /** Project paths (files or folders) to push; none: the whole workspace. */
  scopes: string[];
  concurrency?: number;
  batchSize?: number;
  /** Files of this size or more go in parts (the SDK's default, 64 MiB, when omitted). */
  multipartThreshold?: number;
}

export interface PushReport {
  commit: CommitCreated | null;
  /** A commit an interrupted push had sent, answered now. */
  resumed: CommitCreated | null;
  uploaded: number;
  reused: number;
  deduplicated: number;
  deleted: number;
  bytes: number;
  /** Parts of files uploaded in parts that this push PUT. */
  partsUploaded: number;
  /** Parts the store already held from an interrupted push of the same files, not sent again. */
  partsResumed: number;
  /** The branch the workspace followed before this push's commit moved it to the commit's branch. */
  switchedFrom: string | null;
}

/**
 * Uploads `modified` and `local_only` files, records files deleted here, and makes one commit. A run
 * after an interruption finishes the previous one first (the journal), so nothing is uploaded or
 * committed twice. A commit to another branch than the workspace's makes the workspace follow it
 * (sendCommit).
 */
export async function push(ctx: Context, workspace: Workspace, options: PushOptions): Promise<PushReport> {
  const { client, signal } = ctx;
  const followed = workspace.state.branch;
  const store = await JournalStore.open(workspace);
  const resumed = await resumeInterrupted(ctx, workspace, store);
  // After the resumed commit, which may have moved the workspace to its branch, as it would have had
  // it not been interrupted.
  const branch = options.branch ?? workspace.state.branch;
  const status = await workspaceStatus(client, workspace, branch, signal, { multipartThreshold: options.multipartThreshold });
  await workspace.save();
  const scoped = scopedChanges(status, options.scopes);
  refuseCaseCollisions(status.caseCollisions.filter((group) => group.some((p) => inScope(p, options.scopes))));
  refuseUnstorable(status.unstorable.filter((u) => !u.remote && inScope(u.path, options.scopes)));
  const conflicts = scoped.filter((e) => e.status === 'conflict');
  if (conflicts.length > 0) {
    throw new CliError(
      `${plural(conflicts.length, 'file')} changed here and by a teammate since your last pull:\n${conflicts.map((c) => `  ${c.path} (${c.row.remoteVersion === null ? 'deleted remotely' : `remote version ${c.row.remoteVersion}`})`).join('\n')}\nKeep a copy of your version, run \`lode pull\` after moving it aside, then push again.`,
      { exitCode: EXIT.conflict, code: 'conflict', details: { conflicts: conflicts.map((c) => c.path) } },
    );
  }
  const uploads = scoped.filter(
    (e): e is StatusEntry & { local: NonNullable<StatusEntry['local']> } => (e.status === 'modified' || e.status === 'local_only') && e.local !== undefined,
  );
  const deletes = scoped.filter((e) => e.status === 'deleted_local' && e.row.fileId).map((e) => ({ path: e.path, fileId: e.row.fileId as string }));
  const switchedFrom = () => (workspace.state.branch === followed ? null : followed);
  const report: PushReport = {
    commit: null,
    resumed,
    uploaded: 0,
    reused: 0,
    deduplicated: 0,
    deleted: deletes.length,
    bytes: 0,
    partsUploaded: 0,
    partsResumed: 0,
    switchedFrom: switchedFrom(),
  };
  if (uploads.length === 0 && deletes.length === 0) {
    await store.finish();
    return report;
  }
  await refuseLockedFiles(ctx, [...uploads.map((u) => u.path), ...deletes.map((d) => d.path)]);

  const reused = uploads.flatMap((u) => {
    const confirmed = store.journal.confirmed[u.path];
    return confirmed && confirmed.sha256 === u.local.digest.sha256 ? [confirmed] : [];
  });
  const reusedPaths = new Set(reused.map((r) => r.path));
  const toUpload = uploads.filter((u) => !reusedPaths.has(u.path));
  const totalBytes = toUpload.reduce((sum, u) => sum + u.local.digest.size, 0);
  const totalParts = toUpload.reduce((sum, u) => sum + partsOf(u.local.digest, options.multipartThreshold), 0);
  const progress = new TransferProgress('push', toUpload.length, totalBytes, ctx.out.json, totalParts);
  let result;
  try {
    result = await uploadFiles(
      client,
      toUpload.map((u) => ({ path: u.path, localPath: u.local.localPath, digest: u.local.digest })),
      {
        concurrency: options.concurrency,
        batchSize: options.batchSize,
        multipartThreshold: options.multipartThreshold,
        signal,
        onProgress: progress.update,
        onConfirmed: (files) => store.recordConfirmed(files),
      },
    );
  } finally {
    progress.stop();
  }
  if (result.failures.length > 0) {
    const quota = await quotaReached(ctx, result.failures);
    throw new CliError(
      `${plural(result.failures.length, 'file')} could not be uploaded (nothing was committed; run the push again to retry them):\n${result.failures.map((f) => `  ${f.path}: ${f.message}`).join('\n')}${quota ? `\n${quota.line}` : ''}`,
      { code: quota ? 'quota_exceeded' : 'upload_failed', details: { failures: result.failures, ...(quota ? { usage: quota.usage } : {}) } },
    );
  }
  const uploaded = [...reused, ...result.done];
  const fileVersions: CommitEntry[] = [
    ...uploaded.map((u) => ({ fileId: u.fileId, action: 'modify' as const, version: u.version })),
    ...deletes.map((d) => ({ fileId: d.fileId, action: 'delete' as const })),
  ];
  const pending: PendingCommit = { request: { message: options.message, branch, fileVersions }, uploads: uploaded, deletes };
  await store.recordCommit(pending);
  report.commit = await sendCommit(ctx, workspace, store, pending);
  report.switchedFrom = switchedFrom();
  const sent = result.done.filter((d) => !d.dedup);
  report.uploaded = sent.length;
  report.deduplicated = result.done.length - sent.length;
  report.reused = reused.length;
  // What moved: content the project already held was not sent again.
  report.bytes = sent.reduce((sum, d) => sum + d.size, 0);
  report.partsUploaded = sent.reduce((sum, d) => sum + (d.parts?.uploaded ?? 0), 0);
  report.partsResumed = sent.reduce((sum, d) => sum + (d.parts?.resumed ?? 0), 0);
  return report;
}

/**
 * Uploads refused by the project's storage quota: one line naming what is used of it, read from
 * usage (an initiate-batch entry carries only its message), so the user sees that retrying cannot help.
 */
async function quotaReached(ctx: Context, failures: readonly FileFailure[]): Promise<{ line: string; usage: Usage | null } | null> {
  const refused = failures.filter((f) => f.code === 'quota_exceeded');
  if (refused.length === 0) return null;
  const usage = await ctx.client.usage({}, { signal: ctx.signal }).catch(() => null);
  const used = usage?.quota
    ? `${formatBytes(usage.storedBytes)} of its ${formatBytes(usage.quota.bytes)} ${usage.quota.source} quota are used (${percentUsed(usage.storedBytes, usage.quota.bytes)} %)`
    : 'its quota is used up';
  return {
    usage,
    line: `The project's storage quota is reached: ${used}, and ${plural(refused.length, 'file')} would pass it. Free space with \`lode obliterate PATH\` (\`lode usage --by-extension\` shows what takes it), or ask an org owner or admin to raise the quota, then push again.`,
  };
}

/** How many parts a file goes in (0: one PUT), as the SDK decides it: from its digest's parts, or from the threshold. */
function partsOf(digest: ContentDigest, threshold: number | undefined): number {
  if (digest.parts) return digest.parts.md5s.length;
  return movesInParts(digest.size, threshold) ? partCount(digest.size, partSizeFor(digest.size)) : 0;
}

/**
 * Finishes the commit an interrupted push had sent. One to a branch deleted since is dropped instead
 * (sending it would make the branch again; it may even have landed before the branch was merged and
 * deleted): its confirmed uploads stay in the journal for this push to reuse.
 */
async function resumeInterrupted(ctx: Context, workspace: Workspace, store: JournalStore): Promise<CommitCreated | null> {
  const interrupted = store.journal.commit;
  if (!interrupted) return null;
  const branch = interrupted.request.branch ?? 'main';
  if (await branchExists(ctx.client, branch, ctx.signal)) return sendCommit(ctx, workspace, store, interrupted);
  await store.forgetCommit();
  ctx.out.note(`The interrupted push to ${branch} was dropped: that branch no longer exists (its commit may have landed before it was deleted).`);
  return null;
}

/**
 * Sends the journal's commit with its key; on success makes the workspace follow the commit's branch,
 * records the new versions as synced, moves the record of the branch past the commit, and closes the
 * journal.
 */
async function sendCommit(ctx: Context, workspace: Workspace, store: JournalStore, pending: PendingCommit): Promise<CommitCreated> {
  let commit: CommitCreated;
  try {
    commit = await commitFiles(ctx.client, pending.request, {
      idempotencyKey: store.journal.idempotencyKey,
      signal: ctx.signal,
      draftId: pending.draftId,
      onDraft: (draftId) => store.recordDraft(draftId),
    });
  } catch (error) {
    // A refusal (locks, stale versions…) recorded nothing: the confirmed uploads stay for the next
    // try. A commit still in progress may land: its key and body stay, to be answered again.
    if (isRefusal(error)) await store.forgetCommit();
    throw error;
  }
  // The workspace is on the branch it pushed to, as a git checkout or a Perforce stream workspace is
  // on one: were it to stay on the other, the files just committed would read there as edits, and
  // the next routine push would carry the experiment onto it. The versions of other files synced on
  // the branch followed before stay their bases: unchanged, they read as that branch's content
  // (status.ts, localStatus), which pull replaces with this branch's.
  workspace.follow(pending.request.branch ?? 'main');
  for (const u of pending.uploads) workspace.recordSynced(u.path, u.fileId, u.version, u.sha256);
  for (const d of pending.deletes) workspace.forgetSynced(d.path);
  const scope = { server: ctx.client.transport.baseUrl, projectId: await ctx.client.projectId({ signal: ctx.signal }), branch: workspace.state.branch };
  recordOwnCommit(workspace, scope, commit.sequenceNum, pending);
  await workspace.save();
  await store.finish();
  return commit;
}

/** Checked before any byte moves: the server would take such paths for one file and refuse the second. */
function refuseCaseCollisions(groups: string[][]): void {
  if (groups.length === 0) return;
  throw new CliError(
    `Nothing was pushed: ${plural(groups.length, 'group')} of files with names that differ only in letter case, and Lode keeps one file per name ignoring case (teammates on Windows and macOS could not hold both):\n${groups.map((g) => `  ${g.join(', ')}`).join('\n')}\nRename or delete all but one of each (or list them in .lodeignore), then push again.`,
    { code: 'path_case_conflict', details: { collisions: groups } },
  );
}

/** Checked before any byte moves: the server refuses such names, and a push that skipped them would say it pushed everything. */
function refuseUnstorable(files: UnstorableFile[]): void {
  if (files.length === 0) return;
  throw new CliError(
    `Nothing was pushed: ${plural(files.length, 'file')} with a name Lode cannot store:\n${files.map((f) => `  ${JSON.stringify(f.path)}: ${f.problem}`).join('\n')}\nRename them (or list them in .lodeignore), then push again.`,
    { code: 'invalid_path', details: { files } },
  );
}

/** Checked before any byte moves: a commit would refuse files a teammate has locked. */
async function refuseLockedFiles(ctx: Context, paths: string[]): Promise<void> {
  const wanted = new Set(paths.map(pathKey));
  const locks = await allPages((cursor) => ctx.client.listLocks({ limit: 200, cursor }, { signal: ctx.signal }));
  const locked = locks.filter((lock) => !lock.isMine && wanted.has(pathKey(lock.path)));
  if (locked.length === 0) return;
  throw new CliError(
    `Nothing was pushed: ${plural(locked.length, 'file')} locked by teammates:\n${locked.map((l) => `  ${describeLock(l)}`).join('\n')}\nAsk them to commit or unlock the files, or push the other files only (lode push PATH…).`,
    { exitCode: EXIT.conflict, code: 'file_locked', details: { lockedFiles: locked } },
  );
}
