import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_MULTIPART_THRESHOLD, hashFile, isPartialDownload, mapLimit, movesInParts, partCount, type ContentDigest } from '@lode/sdk';
import { FileMonitor, type MonitorAnswer } from './fs-monitor.ts';
import { ignoreTest, workspaceIgnoreRules, type IgnoreTest } from './ignore-rules.ts';
import { comparePaths } from './index-format.ts';
import { localPathOf, unchangedOf, underNested, type Listing, type LocalEntry, type QuietFiles, type UnchangedFiles } from './listed-files.ts';
import { applyChanges } from './monitored-listing.ts';
import type { RecordedListing } from './monitor-record.ts';
import { statFiles } from './stat-files.ts';
import { STATE_DIR, stateFile, type Workspace } from './workspace.ts';

export interface HashedEntry extends LocalEntry {
  digest: ContentDigest;
}

export interface ScannedWorkspace {
  /** The files listed but the quiet ones. */
  files: LocalEntry[];
  /** Listed files known unchanged at the tip without a look (monitored-listing.ts). */
  quiet?: QuietFiles;
  /** Temporary files of downloads, on disk: a pull killed mid-download leaves its own behind. */
  partials: string[];
  /** Whether `.lodeignore`, the CLI's own rules or a nested workspace leave a project path alone. */
  ignores: (projectPath: string) => boolean;
  /** Workspaces inside this one (project paths of their roots): theirs, both ways. */
  nested: string[];
  /**
   * With the file monitor on, what to record of this listing once its files are hashed (workspace.ts,
   * recordListing): the caller adds the files it set aside unhashed.
   */
  listing?: Omit<RecordedListing, 'unhashed'>;
  /** Whether the listing was made from the record and the monitor's changes, not by a walk. */
  fromMonitor: boolean;
  /** Why the file monitor, though on, did not serve this listing: the workspace was walked. */
  monitorProblem?: string;
}

/**
 * Every regular file of the workspace that `.lodeignore` keeps, as project paths in NFC, in path
 * order (symlinks and workspaces nested inside are skipped), and the downloads' temporary files apart.
 * With the file monitor on and a listing recorded, that listing with the monitor's changes since
 * applied (monitored-listing.ts); otherwise, or with `walk`, a walk of the folders.
 */
export async function scanWorkspace(workspace: Workspace, options: { walk?: boolean; multipartThreshold?: number } = {}): Promise<ScannedWorkspace> {
  const root = path.resolve(workspace.root);
  const ruleLines = await workspaceIgnoreRules(root);
  const ignores = ignoreTest(ruleLines);
  const rules = ruleLines.join('\n');
  // A listing under other rules, or over records another command has written since, is walked again;
  // so is every listing once the rules take back a version-control folder, which Watchman leaves unwatched.
  const listing = workspace.monitor?.listing;
  const usable = listing?.rules === rules && listing.stamp === workspace.index.stamp && VCS_FOLDERS.every((folder) => ignores(folder));
  const recorded = usable ? listing : undefined;
  const asked = workspace.monitor && !options.walk ? await askMonitor(workspace, root, recorded?.clock) : undefined;
  const changes = asked?.answer?.changes;
  const applied =
    changes && recorded ? applyChanges(workspace, root, recorded, changes, { ignores, multipartThreshold: options.multipartThreshold }) : undefined;
  const listed = applied ?? (await walkWorkspace(root, ignores));
  // Paths under a nested workspace are left alone too, remote ones included: pull would write over
  // its files and push delete them.
  const nested = underNested(listed.nested);
  const clock = asked?.answer?.clock;
  return {
    files: listed.files,
    quiet: listed.quiet,
    partials: listed.partials.map((name) => localPathOf(root, name)),
    ignores: (projectPath) => ignores(projectPath) || nested(projectPath),
    nested: listed.nested,
    listing: clock === undefined ? undefined : { clock, rules, partials: listed.partials, nested: listed.nested, localNames: listed.localNames },
    fromMonitor: applied !== undefined,
    monitorProblem: asked?.problem,
  };
}

/** The folders Watchman leaves unwatched at a watch's root (its `ignore_vcs`). */
const VCS_FOLDERS = ['.git/', '.svn/', '.hg/'];

/** What the file monitor answers, or why it could not. */
async function askMonitor(workspace: Workspace, root: string, clock: string | undefined): Promise<{ answer?: MonitorAnswer; problem?: string }> {
  let monitor: FileMonitor | undefined;
  try {
    monitor = await FileMonitor.connect(workspace.monitor?.socket);
    if (monitor.socket) workspace.monitorReachedOn(monitor.socket);
    return { answer: await monitor.changesSince(root, clock) };
  } catch (error) {
    return { problem: (error as Error).message };
  } finally {
    monitor?.end();
  }
}

async function walkWorkspace(root: string, ignores: IgnoreTest): Promise<Listing> {
  const projectPaths: string[] = [];
  const localPaths: string[] = [];
  const partials: string[] = [];
  const nested: string[] = [];
  const localNames: Record<string, string> = {};
  // Synchronous on purpose: a workspace is many small folders and files, and one call per entry
  // costs less than a promise per entry through the thread pool, several times less for 100,000.
  const walk = (dir: string, prefix: string, relative: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    // A workspace inside this one is its own: its files would be pushed twice, under two paths.
    if (prefix !== '' && entries.some((e) => e.name === STATE_DIR && e.isDirectory()) && isFile(stateFile(dir))) {
      nested.push(prefix.slice(0, -1));
      return;
    }
    // In NFC, as the API stores and answers paths: macOS hands out decomposed names (café as e + ´).
    // A folder's name with its '/': each folder's entries sorted so, the walk finds the files in
    // path order, and they need no sort all together.
    const named = entries.map((entry) => ({ entry, name: entry.name.normalize('NFC') + (entry.isDirectory() ? '/' : '') }));
    named.sort((a, b) => comparePaths(a.name, b.name));
    for (const { entry, name } of named) {
      const projectPath = prefix + name;
      const localPath = `${dir}${path.sep}${entry.name}`;
      const onDisk = relative + entry.name;
      if (entry.isDirectory()) {
        if (!ignores(projectPath)) walk(localPath, projectPath, `${onDisk}/`);
      } else if (entry.isFile() && isPartialDownload(entry.name)) {
        partials.push(onDisk);
      } else if (entry.isFile() && !ignores(projectPath)) {
        projectPaths.push(projectPath);
        localPaths.push(localPath);
        if (onDisk !== projectPath) localNames[projectPath] = onDisk;
      }
    }
  };
  walk(root, '', '');
  // Stated once all are listed, so that the stats can be shared between threads.
  const stats = await statFiles(localPaths);
  const files: LocalEntry[] = [];
  for (const [i, projectPath] of projectPaths.entries()) {
    // Gone between the listing and now: not a file of the workspace any more.
    if (stats.size(i) >= 0) files.push({ path: projectPath, localPath: localPaths[i], size: stats.size(i), mtimeMs: stats.mtimeMs(i) });
  }
  return { files, partials, nested, localNames };
}

function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}

/**
 * Whether a cached digest serves the upload its file would get: each part's MD5 for a file from the
 * multipart threshold, a whole-file MD5 below it (a digest with parts serves either: such a file
 * goes in parts whatever the threshold).
 */
export function digestFits(digest: ContentDigest, multipartThreshold: number): boolean {
  if (digest.parts) return partCount(digest.size, digest.parts.partSize) === digest.parts.md5s.length;
  return digest.md5 !== undefined && !movesInParts(digest.size, multipartThreshold);
}

/**
 * Digests of the entries, from the cache when size and mtime are unchanged, otherwise hashed by the
 * SDK's worker threads. Largest first: a big file started last would finish alone on one core while
 * the others idle. A file from `multipartThreshold` is hashed in parts (its SHA-256 and each part's
 * MD5 in one read), and the cache keeps the part MD5s, so a push does not read it again for them.
 * `cached`: the workspace's other files, neither hashed nor returned, whose digests the cache keeps;
 * it drops those of any file in neither list.
 */
export async function hashEntries(
  workspace: Workspace,
  entries: readonly LocalEntry[],
  signal?: AbortSignal,
  multipartThreshold: number = DEFAULT_MULTIPART_THRESHOLD,
  cached: UnchangedFiles = unchangedOf([]),
): Promise<HashedEntry[]> {
  const cache = workspace.hashes;
  const hashed = new Array<HashedEntry>(entries.length);
  const misses: number[] = [];
  for (const [index, entry] of entries.entries()) {
    const hit = cache.get(entry.path);
    if (hit && hit.size === entry.size && hit.mtimeMs === entry.mtimeMs && digestFits(hit, multipartThreshold))
      hashed[index] = { path: entry.path, localPath: entry.localPath, size: entry.size, mtimeMs: entry.mtimeMs, digest: hit };
    else misses.push(index);
  }
  misses.sort((a, b) => entries[b].size - entries[a].size);
  // The workers queue what they are given: enough in hand to keep them all busy.
  await mapLimit(misses, 32, async (index) => {
    const entry = entries[index];
    hashed[index] = { ...entry, digest: await hashFile(entry.localPath, signal, entry.size, { multipartThreshold }) };
  });
  for (const index of misses) {
    const e = hashed[index];
    cache.set(e.path, { ...e.digest, mtimeMs: e.mtimeMs });
  }
  // The cache keeps only files that exist now, so it never outgrows the workspace: it holds every
  // entry now, so one of another path is there only when it holds more.
  if (cache.size !== entries.length + cached.count) {
    const listed = new Set([...entries, ...cached.entries()].map((e) => e.path));
    for (const p of cache.keys()) if (!listed.has(p)) cache.delete(p);
  }
  return hashed;
}
