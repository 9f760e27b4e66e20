import { setTimeout as delay } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import type { ServiceProcess } from '@lode/testkit';
import type { SyncAnswer } from './api-shapes.ts';
import { processInLongTransaction } from './backend-owner.ts';
import { notReady } from './recovery.ts';
import { holdCommitNumbers, seedLargeCommit, seedLargeRestore } from './big-operations.ts';
import { RESTORE_PATIENCE_MS } from './deadlines.ts';
import { FAULT_HOLD_MS, type FaultPlan, type FaultSuite } from './fault-suite.ts';
import type { AckedCommit, KnownVersion } from './ledger.ts';
import { natsClientPorts, untilNatsDropped } from './nats-connections.ts';
import type { Workload } from './workload.ts';

/** Files in the large commit a commit replica is killed in the middle of (the API's maximum). */
export const LARGE_COMMIT_FILES = 25_000;
/** Files in the large restore the restore service is killed in the middle of. */
export const LARGE_RESTORE_FILES = 10_000;
/** How long "other projects keep working" may take to show while a fault holds. */
const KEEPS_WORKING_WAIT_MS = 40_000;
/** How long a large operation may take to reach the point where the suite kills its process. */
const MIDWAY_WAIT_MS = 120_000;
/** How long NATS may take to drop a killed process's connections (a hang guard). */
const NATS_DROP_WAIT_MS = 60_000;

export function postgresBackendsTerminated({ system }: FaultSuite): FaultPlan {
  return {
    async inject() {
      for (let i = 0; i < 3; i++) {
        await system.postgres.terminateBackends(system.databaseName);
        await delay(FAULT_HOLD_MS / 3);
      }
    },
    during: async () => [],
    heal: async () => undefined,
  };
}

export function postgresStopped({ system }: FaultSuite): FaultPlan {
  return { inject: () => system.postgres.stopServer(), heal: () => system.postgres.startServer() };
}

export function natsKilled({ system }: FaultSuite): FaultPlan {
  return { inject: () => system.nats.kill(), heal: () => system.nats.restart() };
}

/**
 * Redis holds only the write rate limit's buckets. The limit fails open to a per-gateway bucket
 * (docs/api.md, Write rate limit): writes of every project go on while Redis is down, and every
 * gateway stays ready (a balancer would otherwise take them all out).
 */
export function redisStopped({ system, workload }: FaultSuite): FaultPlan {
  return {
    inject: () => system.redis.kill(),
    async during() {
      const broken = await keepsWorking(workload, ['erin commits', 'alice commits'], 2, 'while Redis is down');
      return [...broken, ...(await notReady(system)).map((what) => `not ready while Redis is down: ${what}`)];
    },
    heal: () => system.redis.restart(),
  };
}

/**
 * Storage answering 503, or so slowly that every call outlives the bus timeout: what needs the
 * store (confirm reads the object, restore checks it) answers 503 in time, and what does not
 * (committing versions already uploaded, sync) keeps working.
 */
export function storageFailing(suite: FaultSuite, mode: 'unavailable' | 'slow'): FaultPlan {
  const { system, workload, cast } = suite;
  const { erin } = cast;
  const base = `/api/v1/projects/${erin.projectId}`;
  let uploaded: KnownVersion[] = [];
  let committed: KnownVersion[] = [];
  let unconfirmed: { fileId: string; version: number; storageKey: string; sha256: string; size: number } | undefined;
  return {
    async inject() {
      const path = `storage-${mode}/${randomBytes(4).toString('hex')}.bin`;
      committed = await workload.push(erin, [{ path, bytes: randomBytes(128) }]);
      await workload.commit(erin, committed, `before storage is ${mode}`);
      uploaded = await workload.push(erin, [{ path, bytes: randomBytes(128) }]);
      unconfirmed = await workload.uploadUnconfirmed(erin, `${path}.pending`, randomBytes(128));
      system.storage.setMode(mode);
    },
    async during() {
      const broken: string[] = [];
      const made = await workload.commit(erin, uploaded, `committed while storage is ${mode}`);
      if (!('id' in made)) broken.push(`a commit of uploaded versions was refused while storage was ${mode}: ${made.code}`);
      const synced = await erin.api.call<SyncAnswer>('POST', `${base}/sync`, { files: [] }, { expect: [200] });
      if ('id' in made && synced.body.latestCommitSeq < made.sequenceNum) broken.push(`sync missed commit ${made.sequenceNum} while storage was ${mode}`);
      // Each needs the store: one try each, held to the rules like every answer (503 with Retry-After in time).
      const [, restored] = await Promise.all([
        erin.api.once('POST', `${base}/files/upload/confirm`, unconfirmed),
        workload.restoreOnce(
          erin,
          committed.map((f) => ({ fileId: f.fileId, toVersion: f.version })),
        ),
      ]);
      if (restored?.status === 200) broken.push(`a restore answered 200 while storage was ${mode}, without checking the object`);
      const skipped = restored?.status === 422 ? ((restored.body as { skipped?: { code: string }[] }).skipped ?? []) : [];
      if (skipped.some((entry) => entry.code === 'blob_missing'))
        broken.push(`a restore while storage was ${mode} called an object that is there blob_missing`);
      await delay(FAULT_HOLD_MS);
      return broken;
    },
    heal: async () => system.storage.setMode('pass'),
  };
}

/**
 * Processes SIGKILLed and, after the fault's hold, started again as an orchestrator would; the
 * fault ends once the replacements answer their own /readyz.
 */
export function killed(suite: FaultSuite, victims: () => ServiceProcess[], during?: () => Promise<string[]>): FaultPlan {
  let dead: ServiceProcess[] = [];
  return {
    async inject() {
      dead = victims();
      for (const p of dead) if (p.name === 'gateway') suite.findings.downGateways.add(gatewayUrlOf(suite, p));
      await killNow(suite, dead);
    },
    during,
    heal: () => suite.supervisor.restart(dead),
  };
}

/**
 * SIGKILLs the processes and resolves once NATS has dropped their connections. Until then NATS
 * may still route a request to one of them, and that request is answered 504 after the bus
 * timeout: the allowance for it ends when the server, not the suite, says the connections are
 * gone, however long a loaded host takes to notice.
 */
export async function killNow(suite: FaultSuite, processes: ServiceProcess[]): Promise<void> {
  const { findings, system } = suite;
  const connections = (await Promise.all(processes.filter((p) => p.running()).map((p) => natsClientPorts(p.child.pid!, system.nats.port)))).flat();
  findings.reachesKilledUntil = Infinity;
  await suite.supervisor.kill(processes);
  findings.killedAt = performance.now();
  await untilNatsDropped(system.nats, connections, NATS_DROP_WAIT_MS);
  findings.reachesKilledUntil = performance.now();
  const after = Math.round(findings.reachesKilledUntil - findings.killedAt);
  process.stdout.write(
    `[faults] ${findings.scenario}: NATS dropped the ${connections.length} connection(s) of the killed processes ${after} ms after they exited\n`,
  );
}

/** One of the two lock replicas dies: the other serves, and commits (which fence through it) go on in every project. */
export function lockReplicaKilled(suite: FaultSuite): FaultPlan {
  return killed(
    suite,
    () => [suite.system.stack.replicas.lock[0]],
    () => keepsWorking(suite.workload, ['erin commits', 'alice commits', 'carol locks'], 2, 'with one lock replica dead'),
  );
}

/**
 * A commit replica dies in the middle of a 25,000-file commit (its transaction open): the other
 * replica goes on serving every project, and the client's retry with the same key makes the
 * commit exactly once.
 */
export function commitReplicaKilledMidLargeCommit(suite: FaultSuite): FaultPlan {
  const { system, workload, cast } = suite;
  let large: Promise<AckedCommit | string> = Promise.resolve('not started');
  let victim: ServiceProcess | undefined;
  return {
    async inject() {
      const files = await seedLargeCommit(system, cast.frank, LARGE_COMMIT_FILES);
      // The commit's transaction waits for its number until its process is killed: a fast machine
      // once finished the whole commit before its open transaction could be found.
      const numbers = await holdCommitNumbers(system, cast.frank.projectId);
      try {
        large = workload.commit(cast.frank, files, `${LARGE_COMMIT_FILES} files`).then(
          (answer) => ('id' in answer ? answer : `refused: ${answer.code}`),
          (error: unknown) => `failed: ${(error as Error).message}`,
        );
        // Older than any other project's commit: the one waiting for its number.
        victim = await midway(large, () => processInLongTransaction(system, 'lode-commits', 2000, system.stack.replicas.commit), 'the large commit');
        await killNow(suite, [victim]);
      } finally {
        await numbers.release();
      }
    },
    during: () => keepsWorking(workload, ['erin commits', 'alice commits'], 2, 'with the commit replica dead'),
    heal: () => suite.supervisor.restart(victim ? [victim] : []),
    async after() {
      const answer = await large;
      return typeof answer === 'string' ? [`the ${LARGE_COMMIT_FILES}-file commit ${answer}`] : [];
    },
  };
}

/**
 * The restore service dies in the middle of a large restore: the client's retry with the same key
 * finishes it, making each version once and one commit.
 */
export function restoreKilledMidLargeRestore(suite: FaultSuite): FaultPlan {
  const { system, workload, cast } = suite;
  let files: KnownVersion[] = [];
  let large: Promise<string | undefined> = Promise.resolve(undefined);
  const restore = () => system.stack.processes.restore;
  return {
    async inject() {
      files = await seedLargeRestore(system, workload, cast.frank, LARGE_RESTORE_FILES);
      large = workload
        .restore(
          cast.frank,
          files.map((f) => ({ fileId: f.fileId, toVersion: f.version })),
          { patienceMs: RESTORE_PATIENCE_MS },
        )
        .then(
          (answer) => (answer.restored.length === files.length ? undefined : `restored ${answer.restored.length} of ${files.length} files`),
          (error: unknown) => `failed: ${(error as Error).message}`,
        );
      await midway(
        large,
        async () => {
          const [now] = await system.sql<{ n: number }>(`SELECT count(*)::int AS n FROM restore.restore_requests WHERE project_id = $1 AND state <> 'done'`, [
            cast.frank.projectId,
          ]);
          return now.n > 0 ? restore() : undefined;
        },
        'the large restore',
      );
      await killNow(suite, [restore()]);
    },
    heal: () => suite.supervisor.restart([restore()]),
    async after() {
      const failure = await large;
      const [made] = await system.sql<{ n: number }>(`SELECT count(*)::int AS n FROM files.versions WHERE origin = 'restore' AND file_id = ANY($1::uuid[])`, [
        files.map((f) => f.fileId),
      ]);
      return [
        ...(failure ? [`the ${LARGE_RESTORE_FILES}-file restore ${failure}`] : []),
        ...(made.n !== files.length ? [`the restore made ${made.n} versions for ${files.length} files`] : []),
      ];
    },
  };
}

/** Waits, while the fault holds, until each named worker completed `rounds` rounds: other projects (and the survivors) keep working. */
async function keepsWorking(workload: Workload, workers: string[], rounds: number, when: string): Promise<string[]> {
  const since = workload.snapshot();
  const deadline = performance.now() + KEEPS_WORKING_WAIT_MS;
  while (performance.now() < deadline) {
    const lagging = workload.laggingSince(since, rounds).filter((w) => workers.includes(w));
    if (lagging.length === 0) return [];
    await delay(100);
  }
  const lagging = workload.laggingSince(since, rounds).filter((w) => workers.includes(w));
  return [`${lagging.join(', ')} completed fewer than ${rounds} rounds in ${KEEPS_WORKING_WAIT_MS} ms ${when}`];
}

/** Polls until `found` names the process doing the large operation; fails if the operation ends first. */
async function midway(operation: Promise<unknown>, found: () => Promise<ServiceProcess | undefined>, what: string): Promise<ServiceProcess> {
  let settled = false;
  void operation.finally(() => (settled = true));
  const deadline = performance.now() + MIDWAY_WAIT_MS;
  while (performance.now() < deadline && !settled) {
    const p = await found();
    if (p) return p;
    await delay(50);
  }
  throw new Error(`${what} ${settled ? 'finished before its process could be killed midway' : `did not get under way within ${MIDWAY_WAIT_MS} ms`}`);
}

function gatewayUrlOf(suite: FaultSuite, gateway: ServiceProcess): string {
  return suite.system.stack.gatewayUrls[suite.system.stack.gateways.indexOf(gateway)];
}
