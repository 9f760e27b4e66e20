import { rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_MULTIPART_THRESHOLD, downloadFiles, isResumablePartial, rangeSizeFor, resumablePaths, type FileFailure } from '@lode/sdk';
import type { Context } from './context.ts';
import { CliError } from './failure.ts';
import { plural } from './output.ts';
import { TransferProgress } from './progress.ts';
import { scopedChanges, workspaceStatus, type StatusEntry } from './status.ts';
import type { Workspace } from './workspace.ts';

export interface PullOptions {
  branch?: string;
  scopes: string[];
  concurrency?: number;
  /** Files of this size or more come in byte ranges, resumably (the SDK's default, 64 MiB, when omitted). */
  multipartThreshold?: number;
}

export interface PullReport {
  downloaded: number;
  removed: number;
  bytes: number;
  /** Byte ranges of large files this pull fetched. */
  partsDownloaded: number;
  /** Byte ranges an interrupted pull had left on disk, not fetched again. */
  partsResumed: number;
  /** Local edits left alone (`modified`): push them. */
  kept: string[];
  /** Edited here and by a teammate: never overwritten. */
  conflicts: string[];
  /** Partial downloads removed: those of content no longer to download, and small downloads' temporary files (STALE_PARTIAL_MS). */
  partialsRemoved: number;
  /** The branch the workspace followed before `--branch` moved it. */
  switchedFrom: string | null;
}

/**
 * A small download's temporary file untouched this long belongs to no running pull (one being
 * written changes by the second): a pull killed mid-download (SIGKILL, a crash) left it, hidden, and
 * nothing resumes from it. A large download's partial state is resumable instead (resumablePaths):
 * it stays while its content is still to download.
 */
const STALE_PARTIAL_MS = 60 * 60_000;

/**
 * Downloads `outdated` and `missing` files (each verified against its SHA-256, written to a
 * temporary file and renamed), removes `deleted_remote` files this workspace had not changed, and
 * never touches a `modified` or `conflict` file. With `--branch`, the workspace follows that branch
 * from now on, as a git checkout switched to it: files unchanged since synced become that branch's,
 * edits stay, and status, push and pull use it (a routine push must not carry its files elsewhere).
 */
export async function pull(ctx: Context, workspace: Workspace, options: PullOptions): Promise<PullReport> {
  const followed = workspace.state.branch;
  const branch = options.branch ?? followed;
  // The file on disk where there is one: its name may be decomposed (NFD) or cased unlike the project's.
  const onDisk = (e: StatusEntry) => e.local?.localPath ?? workspace.file(e.path);
  const status = await workspaceStatus(ctx.client, workspace, branch, ctx.signal, { follow: true, multipartThreshold: options.multipartThreshold });
  const partialsRemoved = await removeStale(status.partials, resumableToKeep(status.changes, onDisk));
  const scoped = scopedChanges(status, options.scopes);
  // Before any byte moves: a pull to another branch interrupted from here on leaves the workspace on
  // that branch, where the files it did fetch read as synced, not as edits of the one it left.
  await workspace.save();
  const files = workspace.state.files;
  const toDownload = scoped.filter((e) => (e.status === 'outdated' || e.status === 'missing') && e.row.fileId);
  const toRemove = scoped.filter((e) => e.status === 'deleted_remote' && e.local && files.get(e.path)?.sha256 === e.local.digest.sha256);
  const totalBytes = toDownload.reduce((sum, e) => sum + (e.row.remoteSize ?? 0), 0);
  const threshold = options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD;
  const totalParts = toDownload.reduce((sum, e) => {
    const size = e.row.remoteSize ?? 0;
    return sum + (size > 0 && size >= threshold ? Math.ceil(size / rangeSizeFor(size)) : 0);
  }, 0);
  const progress = new TransferProgress('pull', toDownload.length, totalBytes, ctx.out.json, totalParts);
  let result;
  try {
    result = await downloadFiles(
      ctx.client,
      toDownload.map((e) => ({ fileId: e.row.fileId as string, dest: onDisk(e) })),
      { branch, concurrency: options.concurrency, multipartThreshold: threshold, signal: ctx.signal, onProgress: progress.update },
    );
  } finally {
    progress.stop();
  }
  for (const d of result.done) workspace.recordSynced(d.path, d.fileId, d.version, d.sha256);
  for (const e of toRemove) {
    await rm(onDisk(e), { force: true });
    await removeEmptyFolders(workspace.root, path.dirname(onDisk(e)));
    workspace.forgetSynced(e.path);
  }
  await workspace.save();
  if (result.failures.length > 0) {
    throw new CliError(
      `${plural(result.failures.length, 'file')} could not be downloaded (pull again to retry):\n${result.failures.map((f) => `  ${f.path}: ${f.message}`).join('\n')}${purgedHint(result.failures)}`,
      {
        code: 'download_failed',
        details: { failures: result.failures },
      },
    );
  }
  return {
    downloaded: result.done.length,
    removed: toRemove.length,
    bytes: result.done.reduce((sum, d) => sum + d.size, 0),
    partsDownloaded: result.done.reduce((sum, d) => sum + (d.parts?.downloaded ?? 0), 0),
    partsResumed: result.done.reduce((sum, d) => sum + (d.parts?.resumed ?? 0), 0),
    kept: scoped.filter((e) => e.status === 'modified').map((e) => e.path),
    conflicts: scoped.filter((e) => e.status === 'conflict').map((e) => e.path),
    partialsRemoved,
    switchedFrom: branch === followed ? null : followed,
  };
}

/**
 * The folders a removed file leaves empty, up to the workspace root: a folder a teammate deleted goes
 * with its last file, as in their workspace. A folder holding anything else (an ignored file) stays,
 * and so does the current folder.
 */
async function removeEmptyFolders(root: string, from: string): Promise<void> {
  // Never the folder the user stands in, or one above it: their shell would be left in a deleted folder.
  const cwd = path.resolve(process.cwd());
  for (let dir = from; dir.startsWith(root + path.sep) && !`${cwd}${path.sep}`.startsWith(dir + path.sep); dir = path.dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return;
    }
  }
}

/**
 * The partial state a large download of each file still to download would resume from: any other
 * is of content no longer wanted there (a version since replaced, a file deleted or pulled in full).
 */
function resumableToKeep(entries: readonly StatusEntry[], onDisk: (e: StatusEntry) => string): Set<string> {
  const keep = new Set<string>();
  for (const e of entries) {
    if ((e.status !== 'outdated' && e.status !== 'missing') || !e.row.remoteSha256) continue;
    const paths = resumablePaths(onDisk(e), e.row.remoteSha256);
    keep.add(paths.data).add(paths.ranges);
  }
  return keep;
}

/** Removes resumable partial state not in `keep`, and small downloads' temporary files once stale; counts the downloads removed. */
async function removeStale(partials: readonly string[], keep: ReadonlySet<string>): Promise<number> {
  let removed = 0;
  for (const file of partials) {
    const name = path.basename(file);
    if (isResumablePartial(name)) {
      if (keep.has(file)) continue;
      await rm(file, { force: true });
      // A download's bytes and its record of ranges are one partial download.
      if (name.endsWith('.lode-partial')) removed++;
      continue;
    }
    const info = await stat(file).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > STALE_PARTIAL_MS) {
      await rm(file, { force: true });
      removed++;
    }
  }
  return removed;
}

/** An obliterated version never comes back: retrying cannot help, a new commit of the file can. */
function purgedHint(failures: readonly FileFailure[]): string {
  const purged = failures.filter((f) => f.code === 'version_purged');
  if (purged.length === 0) return '';
  return `\n${purged.length === 1 ? `The version of ${purged[0].path} was` : `${purged.length} of these versions were`} obliterated by an org owner or admin and can no longer be downloaded (\`lode history ${purged[0].path}\` shows who removed it, when and why): commit a new version of the file, or delete it and push, to move on.`;
}
