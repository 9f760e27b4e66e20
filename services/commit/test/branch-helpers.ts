import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { pushFile, type ApiResponse, type PushedFile, type SeededProject } from '@lode/testkit';

/** A project's client API for branch, log and tree tests, each call checked for the status it must answer. */
export function projectApi(p: SeededProject) {
  const base = `/api/v1/projects/${p.projectId}`;
  const expectStatus = <T>(res: ApiResponse<T>, status: number): T => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res.body;
  };
  return {
    base,
    push: (path: string, bytes: Buffer = randomBytes(24)): Promise<PushedFile> => pushFile(p.api, p.projectId, path, bytes),
    /** Commits the files' versions (add or modify, as the server decides) and deletions on a branch. */
    commit: async (files: readonly PushedFile[], options: { branch?: string; deletes?: readonly string[]; message?: string } = {}) => {
      const fileVersions = [
        ...files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'modify' })),
        ...(options.deletes ?? []).map((fileId) => ({ fileId, action: 'delete' })),
      ];
      const body = { message: options.message ?? 'change', fileVersions, ...(options.branch ? { branch: options.branch } : {}) };
      return expectStatus<{ id: string; sequenceNum: number }>(await p.api.post(`${base}/commits`, body), 201);
    },
    createBranch: async (name: string, from?: string) => expectStatus(await p.api.post(`${base}/branches`, { name, ...(from ? { from } : {}) }), 201),
    log: async (branch = 'main', query = '') => expectStatus(await p.api.get(`${base}/commits?branch=${encodeURIComponent(branch)}${query}`), 200),
    /** Every page of the tree, as (path, version) pairs. */
    tree: async (branch = 'main', prefix?: string) => {
      const rows: { path: string; version: number }[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `branch=${encodeURIComponent(branch)}&limit=2${prefix === undefined ? '' : `&prefix=${encodeURIComponent(prefix)}`}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: { data: { path: string; version: number }[]; nextCursor: string | null } = expectStatus(await p.api.get(`${base}/files?${query}`), 200);
        rows.push(...page.data.map(({ path, version }) => ({ path, version })));
        cursor = page.nextCursor;
      } while (cursor);
      return rows;
    },
    expectStatus,
  };
}

/** Every page of a list at `path` (which has a query already), `limit` at a time. */
export async function allPages<T>(p: SeededProject, path: string, limit: number): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse<{ data: T[]; nextCursor: string | null }> = await p.api.get(
      `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    rows.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return rows;
}
