import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { describeContent, type ApiResponse } from '@lode/testkit';
import type { CommitAnswer, ConfirmAnswer, ErrorAnswer, InitiateResult, LockAnswer, RestoreAnswer, SyncAnswer, UnlockAnswer } from './api-shapes.ts';
import type { AckedCommit, KnownVersion, Ledger } from './ledger.ts';
import { GaveUp, type ObservedClient } from './observed-client.ts';

/** A user of one project, calling the API with their own key. */
export interface Actor {
  name: string;
  projectId: string;
  userId: string;
  api: ObservedClient;
}

/** How long a stopping run lets each worker finish the flow it is in before its calls give up. */
export const DRAIN_MS = 60_000;
/** Each worker's pause between rounds: a handful of clients, not a load test, on a loaded 2-core host. */
const ROUND_PAUSE_MS = 150;
const PUT_TIMEOUT_MS = 30_000;

type Round = () => Promise<void>;

/**
 * The mixed workload (push, commit, lock, restore, sync): each worker repeats its round until the
 * run stops and records only what the API acknowledged (the ledger). A run is started per scenario;
 * what the workers know (their files, the locks held) carries over to the next.
 */
export class Workload {
  readonly ledger: Ledger;
  readonly #rounds = new Map<string, Round>();
  /** Rounds each worker completed, over the whole suite. */
  readonly progress = new Map<string, number>();
  #stopping = false;
  #stopAt = 0;
  #running: Promise<void>[] = [];
  #failures: Error[] = [];

  constructor(ledger: Ledger) {
    this.ledger = ledger;
  }

  /** For the clients: whether a call still retrying should give up (the run stopped long enough ago). */
  readonly giveUp = (): boolean => this.#stopping && performance.now() > this.#stopAt + DRAIN_MS;

  add(name: string, round: Round): void {
    this.#rounds.set(name, round);
    this.progress.set(name, 0);
  }

  start(): void {
    this.#stopping = false;
    this.#failures = [];
    this.#running = [...this.#rounds].map(async ([name, round]) => {
      while (!this.#stopping) {
        try {
          await round();
        } catch (error) {
          this.#failures.push(new Error(`${name}: ${(error as Error).message}`, { cause: error }));
          return;
        }
        this.progress.set(name, (this.progress.get(name) ?? 0) + 1);
        await delay(ROUND_PAUSE_MS);
      }
    });
  }

  /** Lets every worker finish its round; resolves with what failed (a worker that gave up included). */
  async stop(): Promise<Error[]> {
    this.#stopping = true;
    this.#stopAt = performance.now();
    await Promise.all(this.#running);
    return this.#failures;
  }

  /** Workers that failed so far in this run. */
  failures(): readonly Error[] {
    return this.#failures;
  }

  snapshot(): Map<string, number> {
    return new Map(this.progress);
  }

  /** Workers that completed fewer than `rounds` rounds since the snapshot. */
  laggingSince(since: Map<string, number>, rounds = 1): string[] {
    return [...this.progress].filter(([name, n]) => n - (since.get(name) ?? 0) < rounds).map(([name]) => name);
  }

  // ---- the flows ----

  /** Initiate-batch, PUT each object to its presigned URL (through the storage proxy), confirm each. */
  async push(actor: Actor, files: { path: string; bytes: Buffer }[]): Promise<KnownVersion[]> {
    const base = `/api/v1/projects/${actor.projectId}`;
    const described = files.map((f) => ({ path: f.path, ...describeContent(f.bytes) }));
    const initiated = await actor.api.call<{ results: InitiateResult[] }>(
      'POST',
      `${base}/files/upload/initiate-batch`,
      { files: described },
      { expect: [200] },
    );
    return Promise.all(
      initiated.body.results.map(async (r, i) => {
        const { path, sha256, size } = described[i];
        if (!r.fileId) throw new Error(`initiate-batch ${path}: ${JSON.stringify(r)}`);
        if (!r.dedup) await this.#putObject(r.uploadUrl!, r.requiredHeaders!, files[i].bytes);
        const confirmBody = { fileId: r.fileId, version: r.version, sha256, size, ...(r.dedup ? { dedup: true } : { storageKey: r.storageKey }) };
        const confirmed = await actor.api.call<ConfirmAnswer>('POST', `${base}/files/upload/confirm`, confirmBody, { expect: [200] });
        const known = { fileId: r.fileId, path, version: confirmed.body.version, sha256 };
        this.ledger.ackConfirmed(actor.projectId, known);
        return known;
      }),
    );
  }

  /** A commit with a message of its own and an idempotency key; answers the 201 or the refusal (`allowed`). */
  async commit(actor: Actor, files: KnownVersion[], message: string, allowed: readonly number[] = []): Promise<AckedCommit | ErrorAnswer> {
    const unique = `${message} [${randomUUID()}]`;
    this.ledger.commitMessages.add(unique);
    const fileVersions = files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' }));
    const res = await actor.api.call<CommitAnswer | ErrorAnswer>(
      'POST',
      `/api/v1/projects/${actor.projectId}/commits`,
      { message: unique, fileVersions },
      {
        headers: { 'x-idempotency-key': randomUUID() },
        expect: [201, ...allowed],
      },
    );
    if (res.status !== 201) return res.body as ErrorAnswer;
    const { id, sequenceNum } = res.body as CommitAnswer;
    const acked = { projectId: actor.projectId, id, sequenceNum, files };
    this.ledger.ackCommit(acked);
    return acked;
  }

  /** Uploads new files and a new version of an earlier one, and commits them. */
  committer(actor: Actor, prefix: string): Round {
    const earlier: string[] = [];
    let round = 0;
    return async () => {
      round++;
      const files = ['a', 'b'].map((name) => ({ path: `${prefix}/${round}/${name}.bin`, bytes: randomBytes(200 + round) }));
      if (earlier.length > 0) files.push({ path: earlier[(round * 7) % earlier.length], bytes: randomBytes(300) });
      const pushed = await this.push(actor, files);
      await this.commit(actor, pushed, `${prefix} round ${round}`);
      earlier.push(...files.slice(0, 2).map((f) => f.path));
    };
  }

  /**
   * The locker: commits files of its own, holds the guarded ones for the whole run, and locks and
   * releases the others in turn.
   */
  async lockerSetup(actor: Actor, guarded = 2, cycling = 4): Promise<Round> {
    const files = await this.push(
      actor,
      Array.from({ length: guarded + cycling }, (_, i) => ({ path: `locker/${i}.psd`, bytes: randomBytes(256) })),
    );
    await this.commit(actor, files, 'locker files');
    const ids = files.map((f) => f.fileId);
    this.ledger.lockHolder = actor.userId;
    this.ledger.lockProject = actor.projectId;
    this.ledger.guarded.push(...ids.slice(0, guarded));
    await this.#lock(actor, this.ledger.guarded);
    for (const id of ids) this.ledger.lockState.set(id, this.ledger.guarded.includes(id) ? 'held' : 'free');
    const others = ids.slice(guarded);
    let round = 0;
    return async () => {
      round++;
      const chosen = Array.from({ length: 1 + (round % 3) }, (_, i) => others[(round * 5 + i) % others.length]);
      if (round % 2 === 0) {
        for (const id of await this.#lock(actor, chosen)) this.ledger.lockState.set(id, 'held');
        return;
      }
      const res = await actor.api.call<UnlockAnswer>('DELETE', `/api/v1/projects/${actor.projectId}/locks`, { fileIds: chosen }, { expect: [200] });
      for (const l of res.body.released) this.ledger.lockState.set(l.fileId, 'free');
      for (const r of res.body.notReleased) {
        // not_locked: already free, or an earlier try of this call released it and its answer was lost.
        if (r.reason !== 'not_locked') throw new Error(`unlock left ${r.fileId}: ${JSON.stringify(r)}`);
        this.ledger.lockState.set(r.fileId, 'free');
      }
    };
  }

  /** Another user who keeps committing new versions of the guarded files: every try must be refused `file_locked`. */
  intruder(actor: Actor): Round {
    let round = 0;
    return async () => {
      round++;
      const fileId = this.ledger.guarded[round % this.ledger.guarded.length];
      const [pushed] = await this.push(actor, [{ path: `locker/${this.ledger.guarded.indexOf(fileId)}.psd`, bytes: randomBytes(256) }]);
      if (pushed.fileId !== fileId) throw new Error(`the guarded path resolved to ${pushed.fileId}, not ${fileId}`);
      const answer = await this.commit(actor, [pushed], 'intruder', [409]);
      if ('id' in answer) this.ledger.violations.push(`commit ${answer.sequenceNum} of ${actor.projectId} went through another user's lock on ${fileId}`);
      else if (answer.code !== 'file_locked') throw new Error(`intruder's commit refused ${answer.code}: ${answer.message}`);
      await delay(500);
    };
  }

  /** Restores two files to one base, then the other: each restore is a commit of new versions. */
  async restorerSetup(actor: Actor, patienceMs: number): Promise<Round> {
    const content = (v: number) => ['x', 'y'].map((name) => ({ path: `restore/${name}.fbx`, bytes: randomBytes(400 + v) }));
    const first = await this.push(actor, content(1));
    await this.commit(actor, first, 'restore base 1');
    const second = await this.push(actor, content(2));
    await this.commit(actor, second, 'restore base 2');
    let restores = 0;
    return async () => {
      // The tip holds the other base's content, so nothing is skipped as already current: the
      // target alternates with each acknowledged restore, not with each try.
      const target = restores % 2 === 0 ? first : second;
      const restored = await this.restore(
        actor,
        target.map((f) => ({ fileId: f.fileId, toVersion: f.version })),
        { patienceMs },
      );
      const byId = new Map(target.map((f) => [f.fileId, f]));
      this.ledger.ackCommit({
        projectId: actor.projectId,
        id: restored.commitId,
        sequenceNum: restored.sequenceNum,
        files: restored.restored.map((r) => ({ ...byId.get(r.fileId)!, version: r.newVersion })),
      });
      restores++;
    };
  }

  /** One restore with a key of its own, retried with that key until it answers 200. */
  async restore(actor: Actor, files: { fileId: string; toVersion: number }[], options: { patienceMs?: number } = {}): Promise<RestoreAnswer> {
    const key = randomUUID();
    this.ledger.attemptRestore(actor.projectId, key);
    const res = await actor.api.call<RestoreAnswer>(
      'POST',
      `/api/v1/projects/${actor.projectId}/restore`,
      { files },
      { headers: { 'x-idempotency-key': key }, expect: [200], ...options },
    );
    if (res.body.skipped.length > 0) throw new Error(`restore skipped ${JSON.stringify(res.body.skipped).slice(0, 500)}`);
    return res.body;
  }

  /**
   * One try of a restore, for a scenario that expects it refused: a 200 is recorded like any
   * acknowledged restore. Undefined when no answer came.
   */
  async restoreOnce(actor: Actor, files: { fileId: string; toVersion: number }[]): Promise<ApiResponse<RestoreAnswer | ErrorAnswer> | undefined> {
    const key = randomUUID();
    this.ledger.attemptRestore(actor.projectId, key);
    const res = await actor.api.once<RestoreAnswer | ErrorAnswer>(
      'POST',
      `/api/v1/projects/${actor.projectId}/restore`,
      { files },
      { 'x-idempotency-key': key },
    );
    if (res?.status === 200 && 'commitId' in res.body)
      this.ledger.ackCommit({ projectId: actor.projectId, id: res.body.commitId, sequenceNum: res.body.sequenceNum, files: [] });
    return res;
  }

  /** Initiate and PUT, no confirm: what a scenario confirms itself. */
  async uploadUnconfirmed(
    actor: Actor,
    path: string,
    bytes: Buffer,
  ): Promise<{ fileId: string; version: number; storageKey: string; sha256: string; size: number }> {
    const content = describeContent(bytes);
    const initiated = await actor.api.call<InitiateResult>(
      'POST',
      `/api/v1/projects/${actor.projectId}/files/upload/initiate`,
      { path, ...content },
      { expect: [200] },
    );
    const r = initiated.body;
    if (!r.fileId || !r.uploadUrl || !r.storageKey) throw new Error(`initiate ${path}: ${JSON.stringify(r)}`);
    await this.#putObject(r.uploadUrl, r.requiredHeaders!, bytes);
    return { fileId: r.fileId, version: r.version, storageKey: r.storageKey, sha256: content.sha256, size: content.size };
  }

  /** Syncs the whole project: the answer must include every commit acknowledged before it was sent. */
  reader(actor: Actor): Round {
    return async () => {
      const known = this.ledger.latestAcked(actor.projectId);
      const res = await actor.api.call<SyncAnswer>(
        'POST',
        `/api/v1/projects/${actor.projectId}/sync`,
        { files: [], includeRemoteOnly: true },
        { expect: [200] },
      );
      if (res.body.latestCommitSeq < known)
        this.ledger.violations.push(`sync of ${actor.projectId} answered at commit ${res.body.latestCommitSeq} after commit ${known} was acknowledged`);
      await delay(300);
    };
  }

  async #lock(actor: Actor, fileIds: string[]): Promise<string[]> {
    const res = await actor.api.call<LockAnswer>('POST', `/api/v1/projects/${actor.projectId}/locks`, { fileIds }, { expect: [200] });
    const acquired = res.body.acquired.map((l) => l.fileId);
    if (res.body.conflicts.length > 0 || res.body.notFound.length > 0 || new Set(acquired).size !== new Set(fileIds).size) {
      throw new Error(`lock ${JSON.stringify(fileIds)}: ${JSON.stringify(res.body)}`);
    }
    return acquired;
  }

  /** The client's PUT straight to storage: not the API, so its failures (storage faults) are only retried. */
  async #putObject(url: string, headers: Record<string, string>, bytes: Buffer): Promise<void> {
    for (;;) {
      const res = await fetch(url, { method: 'PUT', headers, body: bytes, signal: AbortSignal.timeout(PUT_TIMEOUT_MS) }).catch((error: Error) => error);
      if (!(res instanceof Error) && res.ok) return;
      const last = res instanceof Error ? res.message : `${res.status} ${await res.text()}`;
      if (!(res instanceof Error) && res.status < 500) throw new Error(`PUT ${url}: ${last}`);
      if (this.giveUp()) throw new GaveUp(`PUT ${url}: given up at the end of the run; last ${last}`);
      await delay(250);
    }
  }
}
