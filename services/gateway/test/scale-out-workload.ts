import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { describeContent, type ApiResponse, type RetryingClient } from '@lode/testkit';

export interface PushedVersion {
  path: string;
  fileId: string;
  version: number;
  sha256: string;
  size: number;
}

/** A commit (or a restore's commit) whose 2xx a client received, with the file versions it put on main. */
export interface AckedCommit {
  id: string;
  sequenceNum: number;
  files: PushedVersion[];
}

export interface SyncRow {
  fileId: string;
  remoteVersion: number;
  remoteSha256: string;
  remoteCommitSeq: number;
}

/**
 * The clients of the scale-out test: each worker loops over its flow until stopped, and records
 * only what the API acknowledged, so the test can check afterwards that all of it is still there.
 */
export class Workload {
  readonly #base: string;
  #finished = false;
  #failure: Error | undefined;
  readonly commits: AckedCommit[] = [];
  readonly confirmed: PushedVersion[] = [];
  /** The locker's files and what its last acknowledged lock call left them. */
  readonly locks = new Map<string, 'held' | 'free'>();
  /** Reads during the run that missed a write acknowledged before they started. */
  readonly violations: string[] = [];
  restores = 0;
  lockOps = 0;
  reads = 0;
  /** Syncs still answering 503 after the client's retries (the read model waits for a killed consumer's event). */
  syncsUnavailable = 0;

  constructor(projectId: string) {
    this.#base = `/api/v1/projects/${projectId}`;
  }

  /** Runs the workers; a failing one stops them all, and until() and stop() report it. */
  start(workers: (() => Promise<void>)[]): Promise<unknown> {
    return Promise.allSettled(
      workers.map((worker) =>
        worker().catch((error: unknown) => {
          this.#failure ??= error instanceof Error ? error : new Error(String(error));
          this.#finished = true;
        }),
      ),
    );
  }

  async until(what: string, done: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.#failure) throw this.#failure;
      if (await done()) return;
      if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting until ${what}`);
      await delay(250);
    }
  }

  /** Lets each worker finish the flow it is in (each call retried until answered), then reports any failure. */
  async stop(workers: Promise<unknown>): Promise<void> {
    this.#finished = true;
    await workers;
    if (this.#failure) throw this.#failure;
  }

  /** Uploads new files and new versions of earlier ones, locks one of them now and then, and commits them. */
  async committer(api: RetryingClient, prefix: string): Promise<void> {
    const tips = new Map<string, PushedVersion>();
    for (let round = 0; !this.#finished; round++) {
      const files = ['a', 'b', 'c'].map((name) => ({ path: `${prefix}/${round}/${name}.bin`, bytes: randomBytes(256 + round) }));
      const earlier = [...tips.keys()];
      if (earlier.length > 0) files.push({ path: earlier[(round * 7) % earlier.length], bytes: randomBytes(300) });
      const pushed = await this.#push(api, files);
      // The author's own lock: the commit releases it.
      if (round % 2 === 0) await this.#lock(api, [pushed[0].fileId]);
      await this.#commit(api, pushed, `${prefix} round ${round}`);
      for (const f of pushed) tips.set(f.path, f);
    }
  }

  /** Locks and unlocks files of its own, which nobody commits, in overlapping sets. */
  async locker(api: RetryingClient): Promise<void> {
    const files = await this.#push(
      api,
      Array.from({ length: 6 }, (_, i) => ({ path: `locker/${i}.psd`, bytes: randomBytes(200) })),
    );
    for (const f of files) this.locks.set(f.fileId, 'free');
    for (let round = 0; !this.#finished; round++) {
      const chosen = Array.from({ length: 1 + (round % 3) }, (_, i) => files[(round * 5 + i) % files.length].fileId);
      if (round % 2 === 0) {
        const acquired = await this.#lock(api, chosen, `round ${round}`);
        for (const fileId of acquired) this.locks.set(fileId, 'held');
      } else {
        const body = await call(api.delete(`${this.#base}/locks`, { fileIds: chosen }), 200, 'unlock');
        for (const l of body.released as { fileId: string }[]) this.locks.set(l.fileId, 'free');
        for (const r of body.notReleased as { fileId: string; reason: string }[]) {
          // not_locked: already free, or this call's earlier try released it and its answer was lost.
          if (r.reason !== 'not_locked') throw new Error(`unlock left ${r.fileId}: ${JSON.stringify(r)}`);
          this.locks.set(r.fileId, 'free');
        }
      }
      this.lockOps++;
    }
  }

  /** Restores two files to version 1, then 2, then 1…: each restore is a new commit of new versions. */
  async restorer(api: RetryingClient): Promise<void> {
    const content = (v: number) => ['x', 'y'].map((name) => ({ path: `restore/${name}.fbx`, bytes: randomBytes(400 + v) }));
    const first = await this.#push(api, content(1));
    await this.#commit(api, first, 'restore base 1');
    const second = await this.#push(api, content(2));
    await this.#commit(api, second, 'restore base 2');
    for (let round = 0; !this.#finished; round++) {
      // The tip holds the other version's content, so nothing is skipped as already current.
      const target = round % 2 === 0 ? first : second;
      const files = target.map((f) => ({ fileId: f.fileId, toVersion: f.version }));
      const body = await call(api.post(`${this.#base}/restore`, { files }, { 'x-idempotency-key': randomUUID() }), 200, 'restore');
      if (body.skipped.length > 0) throw new Error(`restore skipped ${JSON.stringify(body.skipped)}`);
      const restored = (body.restored as { fileId: string; newVersion: number }[]).map((r) => ({
        ...target.find((f) => f.fileId === r.fileId)!,
        version: r.newVersion,
      }));
      this.commits.push({ id: body.commitId, sequenceNum: body.sequenceNum, files: restored });
      this.restores++;
    }
  }

  /** Reads history, sync and the webhook list while the rest writes: each must already show what was acknowledged before it began. */
  async reader(api: RetryingClient): Promise<void> {
    while (!this.#finished) {
      const known = [...this.commits];
      if (known.length === 0) {
        await delay(100);
        continue;
      }
      const commit = known[this.reads % known.length];
      const file = commit.files[this.reads % commit.files.length];
      const page = await call(api.get(`${this.#base}/files/${file.fileId}/versions?limit=200`), 200, 'versions');
      const listed = (page.data as { version: number; commitId: string }[]).some((v) => v.version === file.version && v.commitId === commit.id);
      if (!listed && page.nextCursor === null) this.violations.push(`history of ${file.path} lacks version ${file.version} of commit ${commit.sequenceNum}`);

      const latest = Math.max(...known.map((c) => c.sequenceNum));
      const sync = await api.post(`${this.#base}/sync`, { files: [], includeRemoteOnly: true }).catch(() => undefined);
      if (sync === undefined) this.syncsUnavailable++;
      else if (sync.status !== 200) throw new Error(`sync: ${sync.status} ${JSON.stringify(sync.body)}`);
      else if (sync.body.latestCommitSeq < latest)
        this.violations.push(`sync answered at commit ${sync.body.latestCommitSeq} after commit ${latest} was acknowledged`);
      // The webhooks service is behind the gateway too: its replicas must share and survive the load like the others.
      await call(api.get(`${this.#base}/webhooks`), 200, 'webhooks');
      this.reads++;
    }
  }

  /** Every lock in the project: file id → holder. */
  async heldLocks(api: RetryingClient): Promise<Map<string, string>> {
    const held = new Map<string, string>();
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await call(api.get(`${this.#base}/locks?limit=200${query}`), 200, 'list locks');
      for (const l of page.data as { fileId: string; userId: string }[]) held.set(l.fileId, l.userId);
      cursor = page.nextCursor;
    } while (cursor);
    return held;
  }

  /**
   * The whole remote listing, once the read model has caught up (503 until then). After a kill the
   * read model waits for the killed consumer's events (8 s of ack wait), and the later events of a
   * project it parked come back after a backoff of up to 60 s each time (jetstream-consumer.ts):
   * on a loaded CI machine that can add up to minutes, so this waits as long as the test may run.
   */
  async syncListing(api: RetryingClient, timeoutMs: number): Promise<{ files: SyncRow[]; latestCommitSeq: number }> {
    let listing: { files: SyncRow[]; latestCommitSeq: number } | undefined;
    await this.until(
      'sync answers',
      async () => {
        const res = await api.post(`${this.#base}/sync`, { files: [], includeRemoteOnly: true }).catch(() => undefined);
        if (res && res.status !== 200) throw new Error(`sync: ${res.status} ${JSON.stringify(res.body)}`);
        listing = res?.body;
        return listing !== undefined;
      },
      timeoutMs,
    );
    return listing!;
  }

  /** How many confirmed contents initiate recognizes as already in the project (dedup), asked in batches of 1,000. */
  async dedupedContents(api: RetryingClient): Promise<number> {
    let deduped = 0;
    for (let start = 0; start < this.confirmed.length; start += 1000) {
      const files = this.confirmed
        .slice(start, start + 1000)
        .map((f, i) => ({ path: `dedup-check/${start + i}.bin`, sha256: f.sha256, size: f.size, contentMd5: 'AAAAAAAAAAAAAAAAAAAAAA==' }));
      const body = await call(api.post(`${this.#base}/files/upload/initiate-batch`, { files }), 200, 'dedup check');
      deduped += (body.results as { dedup?: boolean }[]).filter((r) => r.dedup === true).length;
    }
    return deduped;
  }

  /** Locks the files for this client's user; answers what it could not lock (a `committing` conflict is a live commit fence). */
  async lockConflicts(api: RetryingClient, fileIds: string[]): Promise<unknown[]> {
    const left: unknown[] = [];
    for (let start = 0; start < fileIds.length; start += 1000) {
      const body = await call(api.post(`${this.#base}/locks`, { fileIds: fileIds.slice(start, start + 1000) }), 200, 'lock');
      left.push(...body.conflicts, ...body.notFound);
    }
    return left;
  }

  /** The client side of an upload, for a batch: initiate-batch, PUT each object, confirm each. */
  async #push(api: RetryingClient, files: { path: string; bytes: Buffer }[]): Promise<PushedVersion[]> {
    const described = files.map((f) => ({ path: f.path, ...describeContent(f.bytes) }));
    const { results } = await call(api.post(`${this.#base}/files/upload/initiate-batch`, { files: described }), 200, 'initiate-batch');
    return Promise.all(
      (results as { fileId?: string; version: number; storageKey: string; uploadUrl?: string; requiredHeaders: Record<string, string> }[]).map(async (r, i) => {
        const { path, sha256, size } = described[i];
        if (!r.fileId || !r.uploadUrl) throw new Error(`initiate-batch ${path}: ${JSON.stringify(r)}`);
        await putObject(r.uploadUrl, r.requiredHeaders, files[i].bytes);
        const body = await call(
          api.post(`${this.#base}/files/upload/confirm`, { fileId: r.fileId, version: r.version, storageKey: r.storageKey, sha256, size }),
          200,
          'confirm',
        );
        const pushed = { path, fileId: r.fileId, version: body.version as number, sha256, size };
        this.confirmed.push(pushed);
        return pushed;
      }),
    );
  }

  async #commit(api: RetryingClient, files: PushedVersion[], message: string): Promise<void> {
    const fileVersions = files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' }));
    const body = await call(api.post(`${this.#base}/commits`, { message, fileVersions }, { 'x-idempotency-key': randomUUID() }), 201, 'commit');
    this.commits.push({ id: body.id, sequenceNum: body.sequenceNum, files });
  }

  /** Locks files nobody else locks or commits: each must be acquired. */
  async #lock(api: RetryingClient, fileIds: string[], note?: string): Promise<string[]> {
    const body = await call(api.post(`${this.#base}/locks`, { fileIds, note }), 200, 'lock');
    const acquired = (body.acquired as { fileId: string }[]).map((l) => l.fileId);
    if (body.conflicts.length > 0 || body.notFound.length > 0 || new Set(acquired).size !== new Set(fileIds).size) {
      throw new Error(`lock ${JSON.stringify(fileIds)}: ${JSON.stringify(body)}`);
    }
    return acquired;
  }
}

/** The body of an answer with the expected status; anything else fails the worker with the whole answer. */
async function call(response: Promise<ApiResponse>, status: number, what: string): Promise<any> {
  const res = await response;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** PUT to the presigned URL: object storage is not what dies here, but a loaded host can drop a connection. */
async function putObject(url: string, headers: Record<string, string>, bytes: Buffer): Promise<void> {
  let last = '';
  for (let attempt = 1; attempt <= 5; attempt++) {
    const res = await fetch(url, { method: 'PUT', headers, body: bytes, signal: AbortSignal.timeout(20_000) }).catch((error: Error) => error);
    if (!(res instanceof Error) && res.ok) return;
    last = res instanceof Error ? res.message : `${res.status} ${await res.text()}`;
    if (!(res instanceof Error) && res.status < 500) break;
    await delay(200 * attempt);
  }
  throw new Error(`PUT ${url}: ${last}`);
}
