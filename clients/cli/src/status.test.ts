import { describe, expect, it } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Branch, LodeClient, Page, SyncRow } from '@lode/sdk';
import { branchExists, caseCollisions, inScope, workspaceStatus } from './status.ts';
import { Workspace } from './workspace.ts';

describe('push and pull scopes', () => {
  it('takes everything without scopes, and a path under a folder or equal to a file', () => {
    expect(inScope('Levels/Forest.umap', [])).toBe(true);
    expect(inScope('Levels/Forest.umap', ['Levels'])).toBe(true);
    expect(inScope('Levels/Forest.umap', ['Levels/'])).toBe(true);
    expect(inScope('Levels/Forest.umap', ['Levels/Forest.umap'])).toBe(true);
    expect(inScope('Levels/Forest.umap', [''])).toBe(true);
  });

  it('does not take a sibling whose name merely starts the same', () => {
    expect(inScope('LevelsOld/a.umap', ['Levels'])).toBe(false);
    expect(inScope('Levels/Forest.umap.bak', ['Levels/Forest.umap'])).toBe(false);
    expect(inScope('Textures/a.png', ['Levels', 'Audio'])).toBe(false);
  });
});

describe('names that differ only in letter case', () => {
  it('groups the paths the project takes for one file, and nothing else', () => {
    expect(caseCollisions(['Levels/a.umap', 'Case.txt', 'case.txt', 'CASE.TXT', 'Levels/A.umap', 'other.txt'])).toEqual([
      ['CASE.TXT', 'Case.txt', 'case.txt'],
      ['Levels/A.umap', 'Levels/a.umap'],
    ]);
    expect(caseCollisions(['a/b.png', 'a/c.png', 'b/b.png'])).toEqual([]);
  });

  it('compares folders too: one folder to the project whatever its case', () => {
    expect(caseCollisions(['Textures/wood.png', 'textures/wood.png'])).toEqual([['Textures/wood.png', 'textures/wood.png']]);
  });
});

describe('whether a branch exists', () => {
  /** Pages of branches as the API lists them: main first, then by name bytes. */
  const pages = (...names: string[][]) => {
    const asked: (string | undefined)[] = [];
    const client = {
      listBranches: async (query: { cursor?: string } = {}) => {
        asked.push(query.cursor);
        const index = query.cursor === undefined ? 0 : Number(query.cursor);
        const data = names[index].map((name) => ({ name }) as Branch);
        return { data, nextCursor: index + 1 < names.length ? String(index + 1) : null } as Page<Branch>;
      },
    };
    return { client, asked };
  };

  it('finds a name on a later page, and stops once a page passes its place', async () => {
    const listed = pages(['main', 'a1', 'a2'], ['b1', 'b2'], ['c1']);
    expect(await branchExists(listed.client, 'b2')).toBe(true);
    expect(listed.asked).toEqual([undefined, '1']);
    const passed = pages(['main', 'a1', 'a9'], ['b1']);
    expect(await branchExists(passed.client, 'a5')).toBe(false);
    expect(passed.asked).toEqual([undefined]);
    const after = pages(['main', 'a1'], ['b1']);
    expect(await branchExists(after.client, 'z')).toBe(false);
    expect(after.asked).toEqual([undefined, '1']);
  });

  it('knows main without asking', async () => {
    const listed = pages([]);
    expect(await branchExists(listed.client, 'main')).toBe(true);
    expect(listed.asked).toEqual([]);
  });
});

describe('a file the server stored under a name its rule now refuses', () => {
  const row = (path: string, fileId: string): SyncRow => ({ path, status: 'missing', fileId, remoteVersion: 1, remoteSha256: 'a'.repeat(64), remoteCommitSeq: 1, remoteSize: 1 });
  const serverHolding = (rows: SyncRow[]) => ({ sync: async () => ({ files: rows, latestCommitSeq: 1 }) }) as unknown as LodeClient;

  it('is listed, not downloaded; one this workspace synced and has since deleted is still deleted for the team', async () => {
    const workspace = await Workspace.create(await mkdtemp(path.join(tmpdir(), 'lode-status-')), 'main');
    workspace.state.files['Old\u0089.txt'] = { fileId: 'f-old', version: 1, sha256: 'a'.repeat(64) };
    const status = await workspaceStatus(serverHolding([row('Old\u0089.txt', 'f-old'), row('Theirs\u0089.txt', 'f-theirs'), row('fine.txt', 'f-fine')]), workspace, 'main');
    expect(status.entries.map((e) => [e.path, e.status])).toEqual([
      ['Old\u0089.txt', 'deleted_local'],
      ['fine.txt', 'missing'],
    ]);
    expect(status.unstorable).toEqual([{ path: 'Theirs\u0089.txt', problem: 'it contains control characters', remote: true, fileId: 'f-theirs' }]);
  });
});
