import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestFits, scanWorkspace } from './scan.ts';
import { Workspace } from './workspace.ts';

/** A workspace holding `files` (project path → content). */
async function workspaceWith(files: Record<string, string>): Promise<Workspace> {
  const root = await mkdtemp(path.join(tmpdir(), 'lode-scan-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), text);
  }
  return Workspace.create(root, 'main');
}

const VCS_FILES = {
  '.git/config': '[core]',
  '.git/objects/ab/cdef': 'blob',
  'Plugins/Tool/.git/HEAD': 'ref: refs/heads/main',
  '.svn/wc.db': 'svn',
  'Levels/.hg/store/data': 'hg',
  '.p4config': 'P4PORT=ssl:perforce:1666',
  'Content/.p4ignore': '*.tmp',
  '.gitignore': '*.log',
  'Levels/Forest.umap': 'forest',
};

describe('what a scan of the workspace leaves out', () => {
  it('leaves out other version-control systems’ folders (.git, .svn, .hg) and Perforce’s .p4* files, at any depth, as it does .lode', async () => {
    const scanned = await scanWorkspace(await workspaceWith(VCS_FILES));
    expect(scanned.files.map((f) => f.path)).toEqual(['.gitignore', 'Levels/Forest.umap']);
    for (const remote of ['.git/config', 'Tools/.svn/entries', '.p4config', '.lode/state.json']) expect(scanned.ignores(remote), remote).toBe(true);
  });

  it('takes one back when .lodeignore includes it explicitly with !, but never the workspace’s own state', async () => {
    const workspace = await workspaceWith({ ...VCS_FILES, '.lodeignore': '!.p4ignore\n!.git/\n!.lode/\n!*.lode-tmp\n' });
    const scanned = await scanWorkspace(workspace);
    expect(scanned.files.map((f) => f.path)).toEqual([
      '.git/config',
      '.git/objects/ab/cdef',
      '.gitignore',
      '.lodeignore',
      'Content/.p4ignore',
      'Levels/Forest.umap',
      'Plugins/Tool/.git/HEAD',
    ]);
    expect(scanned.ignores('.lode/state.json')).toBe(true);
    expect(scanned.ignores('a.bin.lode-tmp')).toBe(true);
  });
});

describe('the files a scan lists', () => {
  it('come in path order (code units), a folder’s files after a file whose name its name begins', async () => {
    const names = ['a.txt', 'a/b.txt', 'a-b/c.txt', 'B.txt', 'a/Z/y.txt', 'a/z.txt', 'é.txt', 'ab.txt'];
    const scanned = await scanWorkspace(await workspaceWith(Object.fromEntries(names.map((n) => [n, n]))));
    expect(scanned.files.map((f) => f.path)).toEqual(['B.txt', 'a-b/c.txt', 'a.txt', 'a/Z/y.txt', 'a/b.txt', 'a/z.txt', 'ab.txt', 'é.txt']);
  });
});

describe('downloads in progress', () => {
  it('are set apart from the files, a large one’s resumable bytes and record of ranges included, and never taken back', async () => {
    const sha = 'ab12'.repeat(4);
    const workspace = await workspaceWith({
      'Levels/Forest.umap': 'forest',
      'Levels/.Forest.umap.0123abcd.lode-tmp': 'half',
      [`Levels/.Big.uasset.${sha}.lode-partial`]: 'half',
      [`Levels/.Big.uasset.${sha}.lode-ranges`]: '{}',
      '.lodeignore': '!*.lode-partial\n',
    });
    const scanned = await scanWorkspace(workspace);
    expect(scanned.files.map((f) => f.path)).toEqual(['.lodeignore', 'Levels/Forest.umap']);
    expect(scanned.partials.map((p) => path.basename(p)).sort()).toEqual([
      '.Big.uasset.ab12ab12ab12ab12.lode-partial',
      '.Big.uasset.ab12ab12ab12ab12.lode-ranges',
      '.Forest.umap.0123abcd.lode-tmp',
    ]);
    expect(scanned.ignores(`Levels/.Big.uasset.${sha}.lode-partial`)).toBe(true);
  });
});

describe('a cached digest', () => {
  const MiB = 2 ** 20;
  const whole = { size: 100 * MiB, sha256: 'a'.repeat(64), md5: 'm'.repeat(22) + '==' };
  const inParts = { size: 100 * MiB, sha256: 'a'.repeat(64), parts: { partSize: 16 * MiB, md5s: Array.from({ length: 7 }, () => 'p'.repeat(22) + '==') } };

  it('serves a push when it holds what the upload needs: part MD5s from the threshold, a whole MD5 below it', () => {
    expect(digestFits(whole, 200 * MiB)).toBe(true);
    expect(digestFits(whole, 64 * MiB)).toBe(false);
    expect(digestFits(inParts, 64 * MiB)).toBe(true);
    // A file hashed in parts goes in parts whatever the threshold: no second read for a whole MD5.
    expect(digestFits(inParts, 200 * MiB)).toBe(true);
    expect(digestFits({ ...inParts, parts: { ...inParts.parts, md5s: inParts.parts.md5s.slice(1) } }, 64 * MiB)).toBe(false);
  });
});
