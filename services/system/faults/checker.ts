import { setTimeout as delay } from 'node:timers/promises';
import { mapConcurrently } from '@lode/storage';
import type { LockPage, SyncAnswer, VersionsPage } from './api-shapes.ts';
import { describeConsumer, eventConsumers, eventStreamOf } from './event-consumers.ts';
import type { FaultSystem } from './fault-system.ts';
import type { Ledger } from './ledger.ts';
import type { Actor } from './workload.ts';

/** How long the read model and the event consumers get to catch up once the workload stopped. */
const CATCH_UP_LIMIT_MS = 30_000;
/** Of a commit this large, only a sample of files has its history read through the API. */
const HISTORY_SAMPLE_ABOVE = 50;
const HISTORY_READS_IN_FLIGHT = 8;

/**
 * What must hold after every scenario, read through the API and in SQL on the suite's own database:
 * no acknowledged write lost or duplicated, sequence numbers 1..N without gaps, the lock rules kept,
 * and the read model and every event consumer caught up. Answers each broken rule as a sentence.
 */
export class Checker {
  readonly #system: FaultSystem;
  readonly #ledger: Ledger;
  /** One reader per project (its API calls are held to the same rules as the workload's). */
  readonly #readers: Actor[];
  /** Commits whose history was already read through the API: each is read once per suite. */
  readonly #historyRead = new Set<string>();

  constructor(system: FaultSystem, ledger: Ledger, readers: Actor[]) {
    this.#system = system;
    this.#ledger = ledger;
    this.#readers = readers;
  }

  async check(): Promise<string[]> {
    const problems: string[] = [...this.#ledger.violations.splice(0)];
    for (const reader of this.#readers) problems.push(...(await this.#commits(reader.projectId)), ...(await this.#history(reader)));
    problems.push(...(await this.#confirmedVersions()), ...(await this.#locks()));
    problems.push(...(await this.#caughtUp()));
    for (const reader of this.#readers) problems.push(...(await this.#syncAnswer(reader)));
    return problems;
  }

  /** Sequence numbers 1..N, every acknowledged commit at its number, and nothing in the database no client sent, or twice. */
  async #commits(projectId: string): Promise<string[]> {
    const problems: string[] = [];
    const stored = await this.#system.sql<{ id: string; seq: number; message: string }>(
      'SELECT id, sequence_num AS seq, message FROM commits.commits WHERE project_id = $1 ORDER BY sequence_num',
      [projectId],
    );
    const n = stored.length;
    if (stored.some((c, i) => c.seq !== i + 1)) problems.push(`${projectId}: sequence numbers are not 1..${n}: ${stored.map((c) => c.seq).join(',')}`);
    const [sequence] = await this.#system.sql<{ last: number }>('SELECT last_seq AS last FROM commits.project_sequences WHERE project_id = $1', [projectId]);
    if ((sequence?.last ?? 0) !== n) problems.push(`${projectId}: the project's sequence stands at ${sequence?.last} with ${n} commits`);
    const bySeq = new Map(stored.map((c) => [c.seq, c]));
    for (const acked of this.#ledger.commitsOf(projectId)) {
      if (bySeq.get(acked.sequenceNum)?.id !== acked.id)
        problems.push(`${projectId}: acknowledged commit ${acked.id} (#${acked.sequenceNum}) is not stored at its number`);
    }
    const messages = new Map<string, number>();
    for (const c of stored) messages.set(c.message, (messages.get(c.message) ?? 0) + 1);
    const restores = stored.filter((c) => c.message.startsWith('Restore '));
    for (const [message, count] of messages) {
      if (message.startsWith('Restore ')) continue;
      if (!this.#ledger.commitMessages.has(message)) problems.push(`${projectId}: a commit no client sent: "${message}"`);
      if (count > 1) problems.push(`${projectId}: commit "${message}" stored ${count} times`);
    }
    const restoreKeys = this.#ledger.restoreKeys.get(projectId)?.size ?? 0;
    if (restores.length > restoreKeys) problems.push(`${projectId}: ${restores.length} restore commits from ${restoreKeys} restore requests`);
    return problems;
  }

  /** Each acknowledged commit's versions in its files' history through the API (a sample of a large one), read a few at a time. */
  async #history(reader: Actor): Promise<string[]> {
    const unread = this.#ledger.commitsOf(reader.projectId).filter((c) => !this.#historyRead.has(c.id));
    const reads = unread.flatMap((commit) => {
      const files =
        commit.files.length > HISTORY_SAMPLE_ABOVE ? [commit.files[0], commit.files[Math.floor(commit.files.length / 2)], commit.files.at(-1)!] : commit.files;
      return files.map((file) => ({ commit, file }));
    });
    const missing = await mapConcurrently(reads, HISTORY_READS_IN_FLIGHT, async ({ commit, file }) => {
      const page = await reader.api.call<VersionsPage>('GET', `/api/v1/projects/${reader.projectId}/files/${file.fileId}/versions?limit=200`, undefined, {
        expect: [200],
      });
      const listed = page.body.data.some((v) => v.version === file.version && v.commitId === commit.id);
      return listed || page.body.nextCursor !== null
        ? []
        : [`history of ${file.path} lacks version ${file.version} of acknowledged commit #${commit.sequenceNum}`];
    });
    for (const commit of unread) this.#historyRead.add(commit.id);
    return missing.flat();
  }

  async #confirmedVersions(): Promise<string[]> {
    const stored = await this.#system.sql<{ key: string }>(`SELECT file_id || ':' || version || ':' || sha256 AS key FROM files.versions`);
    const keys = new Set(stored.map((r) => r.key));
    return this.#ledger.confirmed
      .filter((v) => !keys.has(`${v.fileId}:${v.version}:${v.sha256}`))
      .map((v) => `confirmed version ${v.version} of ${v.path} (${v.fileId}) is gone`);
  }

  /** The locker holds exactly what its last acknowledged call left it, and no commit went through its locks. */
  async #locks(): Promise<string[]> {
    const locker = this.#readers.find((r) => r.projectId === this.#ledger.lockProject);
    if (!locker) return [];
    const problems: string[] = [];
    const held = new Map<string, string>();
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page: { body: LockPage } = await locker.api.call<LockPage>('GET', `/api/v1/projects/${locker.projectId}/locks?limit=200${query}`, undefined, {
        expect: [200],
      });
      for (const l of page.body.data) held.set(l.fileId, l.userId);
      cursor = page.body.nextCursor;
    } while (cursor);
    const expected = [...this.#ledger.lockState]
      .filter(([, state]) => state === 'held')
      .map(([fileId]) => fileId)
      .sort();
    const actual = [...held.keys()].sort();
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      problems.push(`locks held ${JSON.stringify(actual)}, the locker's acknowledged calls left ${JSON.stringify(expected)}`);
    const others = [...held.values()].filter((userId) => userId !== this.#ledger.lockHolder);
    if (others.length > 0) problems.push(`${others.length} lock(s) held by users who took none`);
    const through = await this.#system.sql<{ seq: number; file_id: string }>(
      `SELECT c.sequence_num AS seq, e.file_id FROM commits.commit_entries e JOIN commits.commits c ON c.id = e.commit_id
       WHERE e.file_id = ANY($1::uuid[]) AND c.author_id <> $2`,
      [this.#ledger.guarded, this.#ledger.lockHolder],
    );
    for (const t of through) problems.push(`commit #${t.seq} changed ${t.file_id} while another user held its lock`);
    return problems;
  }

  /**
   * Every outbox relayed, every event consumer with nothing pending, and the read model at each
   * project's latest commit with the commit service's tree: polled, since consumers finish their
   * last events after the workload stops.
   */
  async #caughtUp(): Promise<string[]> {
    const deadline = performance.now() + CATCH_UP_LIMIT_MS;
    for (;;) {
      const behind = [...(await this.#outboxesBehind()), ...(await this.#consumersBehind()), ...(await this.#readModelBehind())];
      if (behind.length === 0) return [];
      if (performance.now() > deadline) return behind.map((b) => `not caught up ${CATCH_UP_LIMIT_MS} ms after the workload stopped: ${b}`);
      await delay(250);
    }
  }

  async #outboxesBehind(): Promise<string[]> {
    const outboxes = await this.#system.sql<{ schema: string }>(`SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'outbox'`);
    const behind: string[] = [];
    for (const { schema } of outboxes) {
      const [row] = await this.#system.sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.outbox WHERE published_at IS NULL`);
      if (row.n > 0) behind.push(`${row.n} event(s) of ${schema}.outbox unpublished`);
    }
    return behind;
  }

  async #readModelBehind(): Promise<string[]> {
    const lagging = await this.#system.sql<{ project_id: string; last: number; applied: number | null }>(
      `SELECT s.project_id, s.last_seq AS last, p.applied_seq AS applied
       FROM commits.project_sequences s LEFT JOIN sync.progress p ON p.project_id = s.project_id
       WHERE p.applied_seq IS DISTINCT FROM s.last_seq`,
    );
    const differing = await this.#system.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         (SELECT project_id, branch, file_id, version, commit_seq, deleted FROM commits.tree
          EXCEPT SELECT project_id, branch, file_id, version, commit_seq, deleted FROM sync.tree)
         UNION ALL
         (SELECT project_id, branch, file_id, version, commit_seq, deleted FROM sync.tree
          EXCEPT SELECT project_id, branch, file_id, version, commit_seq, deleted FROM commits.tree)
       ) d`,
    );
    return [
      ...lagging.map((l) => `sync read model of ${l.project_id} at commit ${l.applied ?? 'none'} of ${l.last}`),
      ...(differing[0].n > 0 ? [`${differing[0].n} row(s) differ between the commit service's tree and sync's`] : []),
    ];
  }

  /** Each durable consumer of the system's event stream with nothing pending or unacked. */
  async #consumersBehind(): Promise<string[]> {
    const consumers = await eventConsumers(this.#system);
    if (consumers.length === 0) return [`no consumer on ${eventStreamOf(this.#system)}`];
    return consumers.filter((c) => c.pending + c.ackPending > 0).map(describeConsumer);
  }

  /** Sync through the API: the project's latest commit, and every committed file at the commit service's version. */
  async #syncAnswer(reader: Actor): Promise<string[]> {
    const tree = await this.#system.sql<{ key: string }>(
      `SELECT file_id || ':' || version || ':' || commit_seq AS key FROM commits.tree WHERE project_id = $1 AND branch = 'main' AND NOT deleted`,
      [reader.projectId],
    );
    const res = await reader.api.call<SyncAnswer>(
      'POST',
      `/api/v1/projects/${reader.projectId}/sync`,
      { files: [], includeRemoteOnly: true },
      { expect: [200] },
    );
    const latest = this.#ledger.latestAcked(reader.projectId);
    const problems: string[] = [];
    if (res.body.latestCommitSeq < latest) problems.push(`sync of ${reader.projectId} answers commit ${res.body.latestCommitSeq}, ${latest} was acknowledged`);
    const listed = res.body.files.map((r) => `${r.fileId}:${r.remoteVersion}:${r.remoteCommitSeq}`).sort();
    const expected = tree.map((r) => r.key).sort();
    if (JSON.stringify(listed) !== JSON.stringify(expected))
      problems.push(`sync of ${reader.projectId} lists ${listed.length} files, the commit service's tree ${expected.length}, and they differ`);
    return problems;
  }
}
