import { chunk, LodeApiError, type LodeClient, type SyncFile, type SyncRow } from '@lode/sdk';
import { comparePaths } from './index-format.ts';
import { applyChanges, type RemoteFile, type RemoteTree } from './remote-tree.ts';
import { mergeInPathOrder, unchangedOf, type LocalEntry, type QuietFiles, type UnchangedFiles } from './listed-files.ts';
import type { HashedEntry } from './scan.ts';
import type { WorkspaceIndex } from './workspace-index.ts';

/** Rows per GET /changes page: the most the server gives. */
const CHANGES_PAGE = 5000;
/** Files per POST /sync request (the most the server takes); a full comparison sends more as a session of batches. */
export const SYNC_BATCH = 10_000;
/**
 * How many times the branch may move between reading its changes and asking about the files that
 * differ before the comparison gives up and the caller compares in full: each round catches up with
 * the commits made during the last.
 */
const ROUNDS = 5;

export interface IncrementalAnswer {
  /** The rows of the files compared one by one (`hashed`), then those of the remote-only files. */
  rows: SyncRow[];
  /** The listed files as hashed (cache first), all but `unchanged`. */
  hashed: HashedEntry[];
  /** Listed files as this workspace last synced them at the tip (WorkspaceIndex, unchangedAtTip): up to date, no row made. */
  unchanged: UnchangedFiles;
  latestCommitSeq: number;
  /** Whether the record moved on (to save it). */
  changed: boolean;
}

/** The workspace's files on disk and how they are hashed (scan.ts, hashEntries). */
export interface ListedFiles {
  entries: readonly LocalEntry[];
  /** Listed files known unchanged at the tip as of the last status, none of them in `entries` (scan.ts). */
  quiet?: QuietFiles;
  /** Paths that name one file with another listed one (status.ts, caseCollisions): each compared one by one. */
  colliding: ReadonlySet<string>;
  multipartThreshold: number;
  /** Digests of `entries`, `cached` counting as present in the hash cache, neither hashed nor returned. */
  hash(entries: readonly LocalEntry[], cached: UnchangedFiles): Promise<HashedEntry[]>;
}

/**
 * The rows POST /sync would answer for the listed files with includeRemoteOnly, from the record of
 * the branch's tree brought up to date with GET /changes, asking the server only about the files
 * whose content is not the branch's tip (new, edited, outdated, deleted there): a file whose hash is
 * the tip's is up_to_date, and a live remote file not listed is missing, with the tip's fields. A
 * file as the workspace last synced it at the tip, its size and mtime those of its cached digest,
 * is read so on its index line and left out of the rows, which the caller makes only if it needs
 * them. The server decides the rest, which needs the path's history on the branch's lineage. Every
 * row is of one snapshot: the changes' latestCommitSeq and the sync's must agree, or the round starts
 * again from the new point. Undefined when the server cannot answer from the record (410
 * changes_expired) or the branch keeps moving: the caller compares in full.
 */
export async function compareIncrementally(
  client: LodeClient,
  index: WorkspaceIndex,
  tree: RemoteTree,
  listed: ListedFiles,
  signal?: AbortSignal,
): Promise<IncrementalAnswer | undefined> {
  let changed = false;
  let local: LocalFilesAtTip | undefined;
  for (let round = 0; round < ROUNDS; round += 1) {
    const caughtUp = await catchUp(client, tree, signal);
    if (!caughtUp) return undefined;
    changed ||= caughtUp.changed;
    // A change caught up with may be of a file read as at the tip: the files are read again.
    if (!local || caughtUp.changed) local = await filesAtTip(index, listed);
    const { files, hashed, unchanged, unchangedLines } = local;
    const keys = files.map((file) => file.path.toLowerCase());
    // Each tip decoded once, for both the question and the row.
    const tips = keys.map((key) => tree.files.get(key));
    const asked = files.filter((file, i) => tips[i]?.[3] !== file.sha256);
    const answers = await Promise.all(chunk(asked, SYNC_BATCH).map((batch) => client.sync({ files: batch, branch: tree.branch }, { signal })));
    if (answers.some((answer) => answer.latestCommitSeq !== tree.seq)) continue;
    const askedRows = new Map(answers.flatMap((answer) => answer.files).map((row) => [row.path, row]));
    const rows = files.map((file, i) => askedRows.get(file.path) ?? tipRow(file.path, 'up_to_date', tips[i]));
    // Each unchanged file is its key's tip, which no other listed file shares (caseCollisions): the
    // remote files are all listed when the listed keys with a tip are as many.
    const withTip = new Set(keys.filter((_, i) => tips[i] !== undefined));
    if (unchanged.count + withTip.size !== tree.files.size) {
      const listedKeys = new Set(keys);
      const remoteOnly = index.remoteKeysBeside(unchangedLines).filter((key) => !listedKeys.has(key));
      remoteOnly.sort(comparePaths);
      for (const key of remoteOnly) {
        const remote = tree.files.get(key);
        rows.push(tipRow(remote?.[0] ?? key, 'missing', remote));
      }
    }
    return { rows, hashed, unchanged, latestCommitSeq: tree.seq, changed };
  }
  return undefined;
}

interface LocalFilesAtTip {
  /** What is asked about the files compared one by one. */
  files: SyncFile[];
  hashed: HashedEntry[];
  unchanged: UnchangedFiles;
  /** The index lines of the unchanged files, flagged. */
  unchangedLines: Uint8Array;
}

/**
 * Sets apart the listed files as last synced at the tip, and hashes the others. Quiet files stay
 * apart undecoded but those whose records changed since the listing (a change caught up with): they
 * are read again like the rest.
 */
async function filesAtTip(index: WorkspaceIndex, listed: ListedFiles): Promise<LocalFilesAtTip> {
  const unchanged: LocalEntry[] = [];
  const others: LocalEntry[] = [];
  const unchangedLines = new Uint8Array(index.lineCount);
  let entries = listed.entries;
  // The quiet files still quiet, flagged by line, and how many.
  let stillQuiet: { lines: Uint8Array; count: number } | undefined;
  if (listed.quiet) {
    const lines = listed.quiet.lines.slice();
    const cleared = index.clearChanged(lines);
    if (cleared.length > 0) {
      const flags = new Uint8Array(lines.length);
      for (const line of cleared) flags[line] = 1;
      entries = mergeInPathOrder(entries, listed.quiet.entries(flags));
    }
    unchangedLines.set(lines);
    stillQuiet = { lines, count: listed.quiet.count - cleared.length };
  }
  const atTip = index.unchangedAtTip(listed.multipartThreshold);
  for (const entry of entries) {
    const line = listed.colliding.has(entry.path) ? -1 : atTip(entry.path, entry.size, entry.mtimeMs);
    if (line < 0) others.push(entry);
    else {
      unchanged.push(entry);
      unchangedLines[line] = 1;
    }
  }
  const set = listed.quiet && stillQuiet ? withQuiet(unchanged, listed.quiet, stillQuiet) : unchangedOf(unchanged);
  const hashed = await listed.hash(others, set);
  return { files: syncFiles(index, hashed), hashed, unchanged: set, unchangedLines };
}

/** Unchanged files read on their lines, and the `count` quiet ones on the flagged `lines`. */
function withQuiet(read: readonly LocalEntry[], quiet: QuietFiles, { lines, count }: { lines: Uint8Array; count: number }): UnchangedFiles {
  return { count: read.length + count, entries: () => mergeInPathOrder(read, quiet.entries(lines)) };
}

/** What POST /sync is asked about each file: its SHA-256, and the version it was last synced at as `baseVersion`. */
export function syncFiles(index: WorkspaceIndex, hashed: readonly HashedEntry[]): SyncFile[] {
  return hashed.map((e): SyncFile => {
    const baseVersion = index.syncedVersion(e.path);
    return baseVersion !== undefined ? { path: e.path, sha256: e.digest.sha256, baseVersion } : { path: e.path, sha256: e.digest.sha256 };
  });
}

/** Applies every change since the record's commit to it; undefined when the server answers changes_expired. */
async function catchUp(client: LodeClient, tree: RemoteTree, signal?: AbortSignal): Promise<{ changed: boolean } | undefined> {
  let changed = false;
  let latest: number;
  try {
    for (let cursor: string | undefined; ;) {
      const page = await client.changes({ branch: tree.branch, since: tree.seq, generation: tree.generation, limit: CHANGES_PAGE, cursor }, { signal });
      changed = applyChanges(tree.files, page.data) || changed;
      latest = page.latestCommitSeq;
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
  } catch (error) {
    if (error instanceof LodeApiError && error.code === 'changes_expired') return undefined;
    throw error;
  }
  // The pages together describe the branch as of the last one's commit.
  changed ||= latest !== tree.seq;
  tree.seq = latest;
  return { changed };
}

/** The row the server answers for a file whose status follows from the tip alone. */
export function tipRow(path: string, status: 'up_to_date' | 'missing', remote: RemoteFile | undefined): SyncRow {
  if (!remote) throw new Error(`no remote file for ${path}`);
  const [, fileId, version, sha256, size, commitSeq] = remote;
  return { path, status, fileId, remoteVersion: version, remoteSha256: sha256, remoteCommitSeq: commitSeq, remoteSize: size };
}
