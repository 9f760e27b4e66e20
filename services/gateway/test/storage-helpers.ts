import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { webhooks, type Actor, type publicEvents } from '@lode/contracts';
import { describeContent, pushFile, type ApiClient, type PushedFile, type SeededProject } from '@lode/testkit';
import type { TestStack } from '@lode/system/testing';

const LFS_TYPE = 'application/vnd.git-lfs+json';

/** Client steps the storage tests share: pushes (one file, a batch, Git LFS), commits, restores and usage reads. */
export class StorageClient {
  readonly #stack: TestStack;
  readonly project: SeededProject;

  constructor(stack: TestStack, project: SeededProject) {
    this.#stack = stack;
    this.project = project;
  }

  get api(): ApiClient {
    return this.project.api;
  }

  url(path: string): string {
    return `/api/v1/projects/${this.project.projectId}${path}`;
  }

  push(path: string, bytes: Buffer): Promise<PushedFile> {
    return pushFile(this.api, this.project.projectId, path, bytes);
  }

  /** initiate-batch, the PUTs of the upload forms, confirm-batch: as a client pushes many files. */
  async pushBatch(files: readonly { path: string; bytes: Buffer }[]): Promise<{ fileId: string; version: number; dedup: boolean }[]> {
    const initiated = await this.api.post(this.url('/files/upload/initiate-batch'), {
      files: files.map((f) => ({ path: f.path, ...describeContent(f.bytes) })),
    });
    expect(initiated.status).toBe(200);
    const results: { fileId: string; version: number; storageKey?: string; uploadUrl?: string; requiredHeaders?: Record<string, string>; dedup?: true }[] =
      initiated.body.results;
    await Promise.all(
      results.map(async (r, i) => {
        if (r.dedup) return;
        const put = await fetch(r.uploadUrl!, { method: 'PUT', headers: r.requiredHeaders, body: files[i].bytes });
        expect(put.status).toBe(200);
      }),
    );
    const confirmed = await this.api.post(this.url('/files/upload/confirm-batch'), {
      files: results.map((r, i) => {
        const { sha256, size } = describeContent(files[i].bytes);
        return { fileId: r.fileId, version: r.version, sha256, size, ...(r.dedup ? { dedup: true } : { storageKey: r.storageKey }) };
      }),
    });
    expect(confirmed.status).toBe(200);
    for (const result of confirmed.body.results) expect(result).toMatchObject({ confirmed: true });
    return results.map((r) => ({ fileId: r.fileId, version: r.version, dedup: r.dedup === true }));
  }

  async commit(entries: readonly { fileId: string; version: number }[], message = 'storage test'): Promise<void> {
    const response = await this.api.post(this.url('/commits'), { message, fileVersions: entries.map((e) => ({ ...e, action: 'modify' })) });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  }

  async restore(targets: readonly { fileId: string; toVersion: number }[]): Promise<{ fileId: string; newVersion: number }[]> {
    const response = await this.api.post(this.url('/restore'), { files: targets });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.restored;
  }

  /** A Git LFS push of one object (batch, PUT, verify), authenticating as git-lfs does; answers whether bytes went up. */
  async lfsPush(bytes: Buffer): Promise<boolean> {
    const { batch, put, verify } = await this.lfsPushStatuses(bytes);
    expect(batch).toBe(200);
    if (put === undefined) return false;
    expect(put).toBe(200);
    expect(verify).toBe(200);
    return true;
  }

  /** The same push, answering each step's status (no PUT nor verify when the server holds the object). */
  async lfsPushStatuses(bytes: Buffer): Promise<{ batch: number; put?: number; verify?: number }> {
    const oid = createHash('sha256').update(bytes).digest('hex');
    const authorization = `Basic ${Buffer.from(`${this.project.deviceId}:${this.project.key}`).toString('base64')}`;
    const lfs = `${this.#stack.baseUrl}/lfs/${this.project.projectId}`;
    const batch = await fetch(`${lfs}/objects/batch`, {
      method: 'POST',
      headers: { authorization, accept: LFS_TYPE, 'content-type': LFS_TYPE },
      body: JSON.stringify({ operation: 'upload', transfers: ['basic'], objects: [{ oid, size: bytes.length }] }),
    });
    const answer = (await batch.json()) as { objects?: { actions?: Record<string, { href: string; header?: Record<string, string> }> }[] };
    const actions = answer.objects?.[0]?.actions;
    if (batch.status !== 200 || !actions) return { batch: batch.status };
    const put = await fetch(actions.upload.href, { method: 'PUT', headers: actions.upload.header, body: bytes });
    await put.arrayBuffer();
    const verify = await fetch(actions.verify.href, {
      method: 'POST',
      headers: { ...actions.verify.header, 'content-type': LFS_TYPE, accept: LFS_TYPE },
      body: JSON.stringify({ oid, size: bytes.length }),
    });
    await verify.arrayBuffer();
    return { batch: batch.status, put: put.status, verify: verify.status };
  }

  /** The project's public events of one type, oldest first, as the feed (and so its webhooks) has them. */
  async feed(type: publicEvents.PublicEventType): Promise<publicEvents.PublicEvent[]> {
    const { projectId, orgId, userId, keyId } = this.project;
    const actor: Actor = { projectId, orgId, userId, keyId, userName: 'x', userAvatarUrl: null, role: 'owner' };
    const { events } = await this.#stack.bus.call(webhooks.readFeed, { actor, after: 0, types: [type], limit: 10, waitMs: 0 });
    return events.map((e) => e.event);
  }

  async usage(query = ''): Promise<any> {
    const response = await this.api.get(this.url(`/usage${query}`));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  /** The usage figures and the recount from scratch, which must agree, read together. */
  async usageAndRecount(): Promise<{ usage: Figures; recount: Figures }> {
    const [usage, recount] = await Promise.all([this.usage(), this.#stack.upload.usage.recount(this.project.projectId)]);
    return { usage: figuresOf(usage), recount: figuresOf(recount) };
  }
}

export interface Figures {
  logicalBytes: number;
  storedBytes: number;
  versions: number;
  objects: number;
}

export function figuresOf(source: Figures): Figures {
  return { logicalBytes: source.logicalBytes, storedBytes: source.storedBytes, versions: source.versions, objects: source.objects };
}
