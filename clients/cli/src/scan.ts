import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_MULTIPART_THRESHOLD, hashFile, isPartialDownload, mapLimit, movesInParts, partCount, type ContentDigest } from '@lode/sdk';
import { workspaceIgnores } from './ignore-rules.ts';
import { statFiles } from './stat-files.ts';
import { STATE_DIR, stateFile, type Workspace } from './workspace.ts';

export interface LocalEntry {
  path: string;
  localPath: string;
  size: number;
  mtimeMs: number;
}

export interface HashedEntry extends LocalEntry {
  digest: ContentDigest;
}

export interface ScannedWorkspace {
  files: LocalEntry[];
  /** Temporary files of downloads, on disk: a pull killed mid-download leaves its own behind. */
  partials: string[];
  /** Whether `.lodeignore`, the CLI's own rules or a nested workspace leave a project path alone. */
  ignores: (projectPath: string) => boolean;
  /** Workspaces inside this one (project paths of their roots): theirs, both ways. */
  nested: string[];
}

/**
 * Every regular file of the workspace that `.lodeignore` keeps, as project paths in NFC, in path
 * order (symlinks and workspaces nested inside are skipped), and the downloads' temporary files apart.
 */
export async function scanWorkspace(workspace: Workspace): Promise<ScannedWorkspace> {
  const ignores = await workspaceIgnores(workspace.root);
  const projectPaths: string[] = [];
  const localPaths: string[] = [];
  const partials: string[] = [];
  const nested: string[] = [];
  // Synchronous on purpose: a workspace is many small folders and files, and one call per entry
  // costs less than a promise per entry through the thread pool, several times less for 100,000.
  const walk = (dir: string, prefix: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    // A workspace inside this one is its own: its files would be pushed twice, under two paths.
    if (prefix !== '' && entries.some((e) => e.name === STATE_DIR && e.isDirectory()) && isFile(stateFile(dir))) {
      nested.push(prefix);
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
      if (entry.isDirectory()) {
        if (!ignores(projectPath)) walk(localPath, projectPath);
      } else if (entry.isFile() && isPartialDownload(entry.name)) {
        partials.push(localPath);
      } else if (entry.isFile() && !ignores(projectPath)) {
        projectPaths.push(projectPath);
        localPaths.push(localPath);
      }
    }
  };
  walk(path.resolve(workspace.root), '');
  // Stated once all are listed, so that the stats can be shared between threads.
  const stats = await statFiles(localPaths);
  const found: LocalEntry[] = [];
  for (const [i, projectPath] of projectPaths.entries()) {
    // Gone between the listing and now: not a file of the workspace any more.
    if (stats.size(i) >= 0) found.push({ path: projectPath, localPath: localPaths[i], size: stats.size(i), mtimeMs: stats.mtimeMs(i) });
  }
  // Paths under a nested workspace are left alone too, remote ones included: pull would write over
  // its files and push delete them. Compared ignoring case, as the project names files.
  const nestedKeys = nested.map((prefix) => prefix.toLowerCase());
  const underNested = (projectPath: string) => nestedKeys.some((key) => `${projectPath.toLowerCase()}/`.startsWith(key));
  return {
    files: found,
    partials,
    ignores: (projectPath) => ignores(projectPath) || underNested(projectPath),
    nested: nested.map((prefix) => prefix.slice(0, -1)),
  };
}

function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}

/** Paths in code-unit order, the order the server lists them in (not the locale's). */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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
 * `cached`: files of the workspace known to have a fitting digest in the cache, neither hashed nor
 * returned, which the cache keeps.
 */
export async function hashEntries(
  workspace: Workspace,
  entries: readonly LocalEntry[],
  signal?: AbortSignal,
  multipartThreshold: number = DEFAULT_MULTIPART_THRESHOLD,
  cached: readonly LocalEntry[] = [],
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
  if (cache.size !== entries.length + cached.length) {
    const listed = new Set([...entries, ...cached].map((e) => e.path));
    for (const p of cache.keys()) if (!listed.has(p)) cache.delete(p);
  }
  return hashed;
}
