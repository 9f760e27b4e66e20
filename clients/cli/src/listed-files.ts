/** The workspace's files as a listing gives them (scan.ts, monitored-listing.ts), and what is made of them. */
import path from 'node:path';
import { comparePaths } from './index-format.ts';

export interface LocalEntry {
  path: string;
  localPath: string;
  size: number;
  mtimeMs: number;
}

/**
 * Listed files whose index lines read as unchanged at the tip at the last status, neither the files
 * nor their records changed since (monitored-listing.ts): looked at and decoded only when asked.
 */
export interface QuietFiles {
  /** Flags by line of the index file. */
  lines: Uint8Array;
  count: number;
  /** The entries of the flagged `lines` (all of them by default), as the walk lists them, in path order. */
  entries(lines?: Uint8Array): LocalEntry[];
}

/** Listed files set apart as unchanged at the tip (incremental-status.ts): counted, and listed only when asked. */
export interface UnchangedFiles {
  readonly count: number;
  entries(): readonly LocalEntry[];
}

export function unchangedOf(entries: readonly LocalEntry[]): UnchangedFiles {
  return { count: entries.length, entries: () => entries };
}

/** A workspace's files, partials (relative names, `/`-separated) and nested workspaces (project paths). */
export interface Listing {
  files: LocalEntry[];
  quiet?: QuietFiles;
  partials: string[];
  nested: string[];
  /** The names on disk of listed files whose project path differs (monitor-record.ts). */
  localNames: Record<string, string>;
}

/**
 * Whether a project path is under one of the nested workspaces (project paths of their roots), compared
 * ignoring case, as the project names files: such paths are left alone.
 */
export function underNested(nested: readonly string[]): (projectPath: string) => boolean {
  const keys = nested.map((prefix) => `${prefix.toLowerCase()}/`);
  return (projectPath) => keys.length > 0 && keys.some((key) => `${projectPath.toLowerCase()}/`.startsWith(key));
}

/** A name relative to `root`, `/`-separated, as a path on disk. */
export function localPathOf(root: string, name: string): string {
  return `${root}${path.sep}${path.sep === '/' ? name : name.replaceAll('/', path.sep)}`;
}

/** Two lists in path order as one (`added` holds no path of `sorted`). */
export function mergeInPathOrder(sorted: readonly LocalEntry[], added: LocalEntry[]): LocalEntry[] {
  added.sort((a, b) => comparePaths(a.path, b.path));
  const merged: LocalEntry[] = [];
  let i = 0;
  for (const entry of added) {
    while (i < sorted.length && comparePaths(sorted[i].path, entry.path) < 0) merged.push(sorted[i++]);
    merged.push(entry);
  }
  while (i < sorted.length) merged.push(sorted[i++]);
  return merged;
}
