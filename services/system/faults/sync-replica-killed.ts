import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { commit } from '@lode/contracts';
import { PROJECTION_CONSUMER } from '@lode/sync';
import type { ServiceProcess } from '@lode/testkit';
import { serviceNamed } from '../src/registry.ts';
import type { SyncAnswer } from './api-shapes.ts';
import { processesBlockedBy } from './backend-owner.ts';
import { describeConsumer, eventConsumers } from './event-consumers.ts';
import type { FaultPlan, FaultSuite } from './fault-suite.ts';
import type { FaultSystem } from './fault-system.ts';
import type { Answered } from './observed-client.ts';
import { killNow } from './scenarios.ts';
import type { Actor } from './workload.ts';

/**
 * How long the killed sync replica stays down: past the event stream's ack wait, so the events it
 * held come back to the survivor while it is still the only replica.
 */
export const SYNC_REPLICA_DOWN_MS = 20_000;
/** From this long after the kill, every sync answers 200: the survivor alone keeps the read model current. */
export const SYNC_TAKEOVER_MS = 10_000;
/** How long each replica may take to handle its first projection event once both run (a hang guard). */
const SHARING_WAIT_MS = 60_000;
/** How long the replicas may take to start applying events of the projects once their progress is held (a hang guard). */
const MID_APPLY_WAIT_MS = 60_000;
/** The scenario's own syncs, one per project this often, so that neither project's claim rests on a worker's luck. */
const SYNC_POLL_MS = 500;
/** Failed syncs named in the report; the rest are counted. */
const LISTED_FAILURES = 10;

/**
 * Two sync replicas share the read model's durable consumer, each holding a share of the commit
 * events in flight, while the mixed workload runs. One is SIGKILLed and kept down, then started
 * again. The events it held are redelivered once the ack wait passes, and the survivor must apply
 * them and every later one: from SYNC_TAKEOVER_MS after the kill every sync of either project
 * answers 200 (never 503 sync_catching_up nor another 5xx), through the replica's return, and a
 * sync at the end includes every acknowledged commit.
 *
 * The suite runs one sync replica: the second is added for this scenario and stopped after its
 * checks, so every other scenario meets the system as before. A projection is quick, so a replica
 * killed at a random moment most often holds nothing: the suite holds both projects' progress rows
 * until each replica waits for one in the middle of applying an event, with more queued behind it,
 * then kills one and lets the rows go. Besides the workload's readers, the scenario syncs each
 * project itself from SYNC_TAKEOVER_MS on: a reader whose sync the dead replica took waits out
 * the bus timeout, and its project would otherwise go unwatched meanwhile.
 */
export function syncReplicaKilled(suite: FaultSuite): FaultPlan {
  const { system, findings, cast } = suite;
  const projects: Actor[] = [cast.alice, cast.erin];
  const syncs: Answered[] = [];
  const consumersAtFailure: Promise<string[]>[] = [];
  let stopListening: () => void = () => undefined;
  let added: ServiceProcess | undefined;
  let victim: ServiceProcess | undefined;
  let polling: Promise<void> = Promise.resolve();
  let pollingStopped = false;
  const killedAt = () => findings.killedAt ?? Infinity;
  const failed = (a: Answered) => a.status !== 200 && a.sentAt >= killedAt() + SYNC_TAKEOVER_MS;
  return {
    async inject() {
      added = await system.addReplica('sync');
      const replicas = [system.stack.replicas.sync[0], added];
      await untilEachHandledProjection(replicas);
      const progress = await holdProgress(
        system,
        projects.map((a) => a.projectId),
      );
      try {
        await untilEachMidApply(system, progress.pid, replicas);
        victim = replicas[0];
        stopListening = findings.onAnswer((answered) => {
          if (answered.method !== 'POST' || !answered.path.endsWith('/sync')) return;
          syncs.push(answered);
          // The consumers' state when the first sync past the takeover fails, for the report.
          if (failed(answered) && consumersAtFailure.length === 0) consumersAtFailure.push(consumerStates('when the first sync failed'));
        });
        await killNow(suite, [victim]);
      } finally {
        await progress.release();
      }
      await consumerStates('just after the kill');
    },
    async during() {
      if (findings.killedAt === undefined) return [];
      const from = findings.killedAt + SYNC_TAKEOVER_MS;
      polling = Promise.all(projects.map((actor) => syncEvery(actor, from, () => pollingStopped))).then(() => undefined);
      await delay(findings.killedAt + SYNC_REPLICA_DOWN_MS - performance.now());
      return [];
    },
    heal: () => suite.supervisor.restart(victim ? [victim] : []),
    async after() {
      pollingStopped = true;
      await polling;
      // One try each: by the claim it answers 200, and a retry would hide the answer that did not.
      const broken: string[] = [];
      for (const actor of projects) {
        const known = suite.ledger.latestAcked(actor.projectId);
        const res = await actor.api.once<SyncAnswer>('POST', `/api/v1/projects/${actor.projectId}/sync`, { files: [], includeRemoteOnly: true });
        if (res?.status === 200 && res.body.latestCommitSeq < known) {
          broken.push(`a sync of ${actor.name}'s project at the end answered commit ${res.body.latestCommitSeq}; ${known} was acknowledged before it was sent`);
        }
      }
      stopListening();
      broken.push(...judgeSyncs(syncs, killedAt(), projects));
      process.stdout.write(`[faults] ${summarize(syncs, killedAt(), projects)}\n`);
      const atTheEnd = await consumerStates('at the end');
      if (broken.length > 0) broken.push(...(await Promise.all(consumersAtFailure)).flat(), ...atTheEnd);
      return broken;
    },
    async tearDown() {
      pollingStopped = true;
      if (!added) return [];
      const replica = added;
      const code = await system.removeReplica(replica);
      return [
        ...(code === 0 ? [] : [`the added sync replica exited ${code} on SIGTERM:\n${replica.output().trimEnd().split('\n').slice(-40).join('\n')}`]),
        ...replica.unhandledRejections().map((r) => `the added sync replica: unhandled rejection ${JSON.stringify(r).slice(0, 300)}`),
      ];
    },
  };

  /**
   * The read model's consumers' state (commits, and branches beside them), also printed as it is
   * read: a scenario that outlives its test's timeout still shows it.
   */
  async function consumerStates(when: string): Promise<string[]> {
    let states: string[];
    try {
      const consumers = (await eventConsumers(system)).filter((c) => c.name.startsWith(PROJECTION_CONSUMER));
      states = consumers.map((c) => `${when}, ${describeConsumer(c)}`);
    } catch (error) {
      states = [`${when}, the consumers could not be read: ${(error as Error).message}`];
    }
    for (const line of states) process.stdout.write(`[faults] sync replica killed: ${line}\n`);
    return states;
  }
}

/** Every sync sent from SYNC_TAKEOVER_MS after the kill answered 200, and some were sent in each project. */
function judgeSyncs(syncs: readonly Answered[], killedAt: number, projects: readonly Actor[]): string[] {
  const watched = syncs.filter((a) => a.sentAt >= killedAt + SYNC_TAKEOVER_MS);
  const failures = watched.filter((a) => a.status !== 200);
  const broken = failures
    .slice(0, LISTED_FAILURES)
    .map(
      (a) =>
        `a sync of ${projectOf(a, projects)} sent ${Math.round(a.sentAt - killedAt)} ms after a sync replica was killed answered ${a.status ?? 'nothing'} ${a.code}`,
    );
  if (failures.length > LISTED_FAILURES)
    broken.push(`and ${failures.length - LISTED_FAILURES} more syncs sent ${SYNC_TAKEOVER_MS} ms or more after the kill did not answer 200`);
  for (const actor of projects) {
    if (!watched.some((a) => a.path.includes(actor.projectId)))
      broken.push(`no sync of ${actor.name}'s project was sent from ${SYNC_TAKEOVER_MS} ms after the kill to the end: the claim went unchecked there`);
  }
  return broken;
}

function summarize(syncs: readonly Answered[], killedAt: number, projects: readonly Actor[]): string {
  const byProject = projects.map((actor) => {
    const mine = syncs.filter((a) => a.path.includes(actor.projectId));
    const early = mine.filter((a) => a.sentAt < killedAt + SYNC_TAKEOVER_MS && a.sentAt >= killedAt);
    const late = mine.filter((a) => a.sentAt >= killedAt + SYNC_TAKEOVER_MS);
    return `${actor.name}'s project: ${early.length} syncs in the first ${SYNC_TAKEOVER_MS} ms after the kill (${tally(early)}), ${late.length} after (${tally(late)})`;
  });
  return `sync replica killed: ${byProject.join('; ')}`;
}

function tally(answers: readonly Answered[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const outcome = a.status === undefined ? 'no answer' : `${a.status}${a.code ? ` ${a.code}` : ''}`;
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }
  return [...counts].map(([outcome, n]) => `${n}× ${outcome}`).join(', ') || 'none';
}

function projectOf(answered: Answered, projects: readonly Actor[]): string {
  const actor = projects.find((a) => answered.path.includes(a.projectId));
  return actor ? `${actor.name}'s project` : answered.path;
}

/**
 * Holds the read model's progress rows of these projects until `release`: a replica applying an
 * event of either waits for its row inside its transaction, with that event and the ones queued
 * behind it unacknowledged.
 */
async function holdProgress(system: FaultSystem, projectIds: readonly string[]): Promise<{ pid: number; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: system.stack.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
  await client.query(`SELECT project_id FROM ${serviceNamed('sync').schema}.progress WHERE project_id = ANY($1::uuid[]) FOR UPDATE`, [projectIds]);
  return {
    pid,
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

/** Resolves once each replica waits for a progress row `holder` holds: each is in the middle of applying an event. */
async function untilEachMidApply(system: FaultSystem, holder: number, replicas: readonly ServiceProcess[]): Promise<void> {
  const deadline = performance.now() + MID_APPLY_WAIT_MS;
  let waiting = new Set<ServiceProcess>();
  while (performance.now() < deadline) {
    waiting = await processesBlockedBy(system, holder, `lode-${serviceNamed('sync').schema}`, replicas);
    if (replicas.every((r) => waiting.has(r))) return;
    await delay(50);
  }
  throw new Error(`only ${waiting.size} of ${replicas.length} sync replicas started applying an event of either project within ${MID_APPLY_WAIT_MS} ms`);
}

/** One try of a sync of the project every SYNC_POLL_MS from `from` until `stopped`; each answer goes to the listeners. */
async function syncEvery(actor: Actor, from: number, stopped: () => boolean): Promise<void> {
  await delay(from - performance.now());
  while (!stopped()) {
    await actor.api.once('POST', `/api/v1/projects/${actor.projectId}/sync`, { files: [], includeRemoteOnly: true });
    await delay(SYNC_POLL_MS);
  }
}

/**
 * Resolves once each process has handled a commit event of the read model's consumer since this
 * was called (its /metrics): the consumer is shared, so killing one loses events it held.
 */
async function untilEachHandledProjection(processes: readonly ServiceProcess[]): Promise<void> {
  const before = await Promise.all(processes.map(projectionEventsHandled));
  const deadline = performance.now() + SHARING_WAIT_MS;
  for (;;) {
    const now = await Promise.all(processes.map(projectionEventsHandled));
    if (now.every((n, i) => n > before[i])) return;
    if (performance.now() > deadline) {
      throw new Error(
        `not every sync replica handled a commit event within ${SHARING_WAIT_MS} ms: ${processes.map((p, i) => `${p.opsUrl} ${now[i] - before[i]}`).join(', ')}`,
      );
    }
    await delay(200);
  }
}

/** Commit events the read model's consumer has handled in this process, from the consumer delay histogram's count. */
async function projectionEventsHandled(p: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${p.opsUrl}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  let handled = 0;
  for (const [, labels, value] of text.matchAll(/^lode_events_consumer_delay_count\{([^}]*)\} (\S+)$/gm)) {
    const ours =
      labels.includes(`messaging_consumer_group_name="${PROJECTION_CONSUMER}"`) &&
      labels.includes(`messaging_destination_name="${commit.commitCreated.subject}"`);
    if (ours) handled += Number(value);
  }
  return handled;
}
