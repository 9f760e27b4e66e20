import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LodeApiError, type Branch, type LodeClient, type Page, type SyncRow } from '@lode/sdk';
import { branchExists, caseCollisions, inScope, localStatus, workspaceStatus } from './status.ts';
import { Workspace } from './workspace.ts';

/** A server without GET /changes: each status compares in full and records nothing. */
const WITHOUT_CHANGES = {
  transport: { baseUrl: 'http://lode.test' },
  projectId: async () => 'project',
  changes: async () => Promise.reject(new LodeApiError(404, { code: 'route_not_found', message: 'No such route' }, null)),
};

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
  const row = (path: string, fileId: string): SyncRow => ({
    path,
    status: 'missing',
    fileId,
    remoteVersion: 1,
    remoteSha256: 'a'.repeat(64),
    remoteCommitSeq: 1,
    remoteSize: 1,
  });
  const serverHolding = (rows: SyncRow[]) =>
    ({
      ...WITHOUT_CHANGES,
      sync: async () => ({ files: rows, latestCommitSeq: 1 }),
      listBranches: async () => ({ data: [{ name: 'main', headSequenceNum: 1, forkedFrom: null }], nextCursor: null }),
    }) as unknown as LodeClient;

  it('is listed, not downloaded; one this workspace synced and has since deleted is still deleted for the team', async () => {
    const workspace = await Workspace.create(await mkdtemp(path.join(tmpdir(), 'lode-status-')), 'main');
    workspace.recordSynced('Old\u0089.txt', 'f-old', 1, 'a'.repeat(64));
    const status = await workspaceStatus(
      serverHolding([row('Old\u0089.txt', 'f-old'), row('Theirs\u0089.txt', 'f-theirs'), row('fine.txt', 'f-fine')]),
      workspace,
      'main',
    );
    expect(status.entries.map((e) => [e.path, e.status])).toEqual([
      ['Old\u0089.txt', 'deleted_local'],
      ['fine.txt', 'missing'],
    ]);
    expect(status.unstorable).toEqual([{ path: 'Theirs\u0089.txt', problem: 'it contains control characters', remote: true, fileId: 'f-theirs' }]);
  });
});

describe('how the workspace reads a row, knowing what it synced', () => {
  const SHA = { v1: '1'.repeat(64), v2: '2'.repeat(64), mine: 'e'.repeat(64) };
  const row = (status: SyncRow['status'], remote: { version: number; sha256: string } | 'deleted' | null): SyncRow => ({
    path: 'hero.fbx',
    status,
    fileId: remote === null ? null : 'f-hero',
    remoteVersion: remote === null || remote === 'deleted' ? null : remote.version,
    remoteSha256: remote === null || remote === 'deleted' ? null : remote.sha256,
    remoteCommitSeq: remote === null ? null : 4,
    remoteSize: remote === null || remote === 'deleted' ? null : 10,
  });
  const synced = (version: number, sha256: string) => ({ fileId: 'f-hero', version, sha256 });

  it('calls a file put back at a path a teammate deleted (whose deletion this workspace pulled) new, not modified nor deleted remotely', () => {
    expect(localStatus(row('modified', 'deleted'), undefined, SHA.mine)).toBe('local_only');
    // The very bytes of a version the branch had: still a file added again, which pull must not list for removal.
    expect(localStatus(row('deleted_remote', 'deleted'), undefined, SHA.v1)).toBe('local_only');
    // This workspace had it and the teammate deleted it since: as before.
    expect(localStatus(row('deleted_remote', 'deleted'), synced(1, SHA.v1), SHA.v1)).toBe('deleted_remote');
    expect(localStatus(row('conflict', 'deleted'), synced(1, SHA.v1), SHA.mine)).toBe('conflict');
  });

  it('does not take the previous branch’s version, unchanged since synced, for an edit on the branch the workspace follows now', () => {
    // Synced v2 on the branch followed before; this branch has v1 of the file, or never had it.
    expect(localStatus(row('modified', { version: 1, sha256: SHA.v1 }), synced(2, SHA.v2), SHA.v2)).toBe('outdated');
    expect(localStatus(row('conflict', { version: 3, sha256: SHA.v1 }), synced(2, SHA.v2), SHA.v2)).toBe('outdated');
    expect(localStatus(row('conflict', 'deleted'), synced(2, SHA.v2), SHA.v2)).toBe('deleted_remote');
    expect(localStatus(row('local_only', null), synced(2, SHA.v2), SHA.v2)).toBe('deleted_remote');
    // Edited since: the user's change, as the server says.
    expect(localStatus(row('modified', { version: 1, sha256: SHA.v1 }), synced(2, SHA.v2), SHA.mine)).toBe('modified');
    expect(localStatus(row('conflict', { version: 3, sha256: SHA.v1 }), synced(2, SHA.v2), SHA.mine)).toBe('conflict');
    expect(localStatus(row('local_only', null), undefined, SHA.mine)).toBe('local_only');
  });
});

describe('the branch a status is about', () => {
  const server = (branches: { name: string; headSequenceNum: number | null; forkedFrom: Branch['forkedFrom'] }[], rows: SyncRow[]) =>
    ({
      ...WITHOUT_CHANGES,
      sync: async () => ({ files: rows, latestCommitSeq: 9 }),
      listBranches: async () => ({ data: branches, nextCursor: null }),
    }) as unknown as LodeClient;
  const A_SHA = createHash('sha256').update('a').digest('hex');
  const upToDate: SyncRow = { path: 'a.txt', status: 'up_to_date', fileId: 'f-a', remoteVersion: 3, remoteSha256: A_SHA, remoteCommitSeq: 7, remoteSize: 1 };

  it('names that branch’s latest commit, not the project’s (another branch’s)', async () => {
    const workspace = await Workspace.create(await mkdtemp(path.join(tmpdir(), 'lode-status-')), 'main');
    const client = server(
      [
        { name: 'main', headSequenceNum: 4, forkedFrom: null },
        { name: 'exp', headSequenceNum: 9, forkedFrom: { branch: 'main', sequenceNum: 4 } },
      ],
      [],
    );
    expect(await workspaceStatus(client, workspace, 'main')).toMatchObject({
      branch: 'main',
      head: { headSequenceNum: 4, forkedFrom: null },
      latestCommitSeq: 9,
    });
    expect(await workspaceStatus(client, workspace, 'exp')).toMatchObject({ branch: 'exp', head: { headSequenceNum: 9, forkedFrom: { branch: 'main' } } });
  });

  it('fails with the server’s answer when it cannot say the branch’s generation, rather than record nothing in silence', async () => {
    const workspace = await Workspace.create(await mkdtemp(path.join(tmpdir(), 'lode-status-')), 'main');
    const unavailable = new LodeApiError(503, { code: 'service_unavailable', message: 'The sync service is unavailable' }, null);
    const client = {
      ...server([{ name: 'main', headSequenceNum: 4, forkedFrom: null }], []),
      changes: async () => Promise.reject(unavailable),
    } as unknown as LodeClient;
    await expect(workspaceStatus(client, workspace, 'main')).rejects.toBe(unavailable);
  });

  it('makes the workspace follow the branch when asked (pull --branch), recording that branch’s versions as synced', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'lode-status-'));
    await writeFile(path.join(root, 'a.txt'), 'a');
    const workspace = await Workspace.create(root, 'main');
    const client = server(
      [
        { name: 'main', headSequenceNum: 1, forkedFrom: null },
        { name: 'exp', headSequenceNum: 7, forkedFrom: { branch: 'main', sequenceNum: 1 } },
      ],
      [upToDate],
    );
    await workspaceStatus(client, workspace, 'exp');
    // The branch followed and the synced versions, as plain values.
    const state = () => ({
      branch: workspace.state.branch,
      files: Object.fromEntries(workspace.state.files.keys().map((p) => [p, workspace.state.files.get(p)])),
    });
    expect(state()).toEqual({ branch: 'main', files: {} });
    await workspaceStatus(client, workspace, 'exp', undefined, { follow: true });
    expect(state()).toEqual({ branch: 'exp', files: { 'a.txt': { fileId: 'f-a', version: 3, sha256: A_SHA } } });
  });
});
