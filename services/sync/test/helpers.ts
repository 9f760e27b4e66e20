import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { pushFile, type PushedFile, type SeededProject } from '@lode/testkit';

export const sha = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');
export const randomSha = (): string => sha(randomBytes(16));

export interface Local {
  path: string;
  sha256: string;
  baseVersion?: number;
}

/** A project as a client sees it: push bytes, commit, and ask sync. */
export function workspace(p: SeededProject) {
  const { api } = p;
  const base = `/api/v1/projects/${p.projectId}`;
  return {
    push: (path: string, bytes: Buffer = randomBytes(24)) => pushFile(api, p.projectId, path, bytes),
    /** Commits add/modify of pushed versions and deletes of file ids; answers the sequence number. */
    async commit(changes: { set?: { fileId: string; version: number }[]; remove?: string[] }, branch?: string): Promise<number> {
      const fileVersions = [
        ...(changes.set ?? []).map((f) => ({ fileId: f.fileId, version: f.version, action: 'modify' })),
        ...(changes.remove ?? []).map((fileId) => ({ fileId, action: 'delete' })),
      ];
      const res = await api.post(`${base}/commits`, { message: 'test', fileVersions, branch });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.sequenceNum as number;
    },
    sync: (body: Record<string, unknown>) => api.post(`${base}/sync`, body),
    /** The one row of a one-file sync. */
    async row(local: Local, extra: Record<string, unknown> = {}) {
      const res = await api.post(`${base}/sync`, { files: [local], ...extra });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.files[0];
    },
    async status(local: Local, extra: Record<string, unknown> = {}): Promise<string> {
      return (await this.row(local, extra)).status as string;
    },
  };
}

/** The row sync answers for a live remote file. */
export function liveRow(path: string, status: string, f: PushedFile, commitSeq: number) {
  return { path, status, fileId: f.fileId, remoteVersion: f.version, remoteSha256: f.sha256, remoteCommitSeq: commitSeq, remoteSize: f.size };
}
