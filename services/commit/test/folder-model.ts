import { expect } from 'vitest';
import type { SeededProject } from '@lode/testkit';
import { allPages } from './branch-helpers.ts';

export interface LiveFile {
  fileId: string;
  path: string;
  size: number;
}

export type Child =
  | { type: 'folder'; name: string; path: string; fileCount: number; totalSize: number }
  | { type: 'file'; name: string; fileId: string; path: string; size: number };

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The folder listing worked out the slow way, from every live file of the branch: the subfolders
 * right under `prefix` with every file below each counted and summed, by name in byte order, then
 * the files right in it, by name in byte order.
 */
export function foldLevel(files: readonly LiveFile[], prefix: string): Child[] {
  const folders = new Map<string, { fileCount: number; totalSize: number }>();
  const here: Child[] = [];
  for (const file of files) {
    if (!file.path.startsWith(prefix)) continue;
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) {
      here.push({ type: 'file', name: rest, fileId: file.fileId, path: file.path, size: file.size });
      continue;
    }
    const name = rest.slice(0, slash);
    const folder = folders.get(name) ?? { fileCount: 0, totalSize: 0 };
    folders.set(name, { fileCount: folder.fileCount + 1, totalSize: folder.totalSize + file.size });
  }
  const subfolders = [...folders.entries()]
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([name, totals]): Child => ({ type: 'folder', name, path: `${prefix}${name}/`, ...totals }));
  return [...subfolders, ...here.sort((a, b) => byteOrder(a.name, b.name))];
}

/** Every folder path of the files ('' for the root, then 'a/', 'a/b/', …). */
export function folderPaths(files: readonly LiveFile[]): string[] {
  const paths = new Set(['']);
  for (const { path } of files) {
    const segments = path.split('/').slice(0, -1);
    segments.forEach((_, i) => paths.add(`${segments.slice(0, i + 1).join('/')}/`));
  }
  return [...paths];
}

/** The API's client for the folder listing and the project tree of one project. */
export function folderApi(p: SeededProject) {
  const base = `/api/v1/projects/${p.projectId}`;
  const query = (params: Record<string, string | undefined>) =>
    Object.entries(params)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${encodeURIComponent(value as string)}`)
      .join('&');
  /** Every child of the folder, `limit` a page, as the fold shows them (the fields it knows). */
  const level = async (prefix: string, options: { branch?: string; limit?: number } = {}): Promise<Child[]> => {
    const rows = await allPages<Child & Record<string, unknown>>(p, `${base}/folders?${query({ prefix, branch: options.branch })}`, options.limit ?? 200);
    return rows.map((row) =>
      row.type === 'folder'
        ? { type: 'folder', name: row.name, path: row.path, fileCount: row.fileCount, totalSize: row.totalSize }
        : { type: 'file', name: row.name, fileId: row.fileId, path: row.path, size: row.size },
    );
  };
  /** Every live file of the branch (the project tree, all pages). */
  const files = async (branch?: string): Promise<LiveFile[]> =>
    (await allPages<LiveFile>(p, `${base}/files?${query({ branch })}`, 200)).map(({ fileId, path, size }) => ({ fileId, path, size }));
  return {
    base,
    level,
    files,
    /** Checks every level of the branch, `limit` children a page, against the fold of its full file list; answers that list. */
    matchesFold: async (branch?: string, limit?: number): Promise<LiveFile[]> => {
      const live = await files(branch);
      for (const prefix of folderPaths(live)) expect(await level(prefix, { branch, limit }), `folder "${prefix}"`).toEqual(foldLevel(live, prefix));
      return live;
    },
  };
}
