import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanWorkspace } from './scan.ts';
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
