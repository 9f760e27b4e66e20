import { loadavg } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { SeededProject } from '@lode/testkit';
import { Checker } from './checker.ts';
import { startFaultSystem, type FaultSystem } from './fault-system.ts';
import { Ledger } from './ledger.ts';
import { Findings, ObservedClient, type Finding } from './observed-client.ts';
import { measureRecovery, type Recovery } from './recovery.ts';
import { Supervisor } from './supervisor.ts';
import { Workload, type Actor } from './workload.ts';
import { RESTORE_PATIENCE_MS } from './deadlines.ts';

/** How long a fault lasts once in effect, unless the scenario holds it for what it checks meanwhile. */
export const FAULT_HOLD_MS = 3000;
/** How long every worker gets to complete a round: before the fault, and again after recovery. */
const PROGRESS_WAIT_MS = 60_000;

export interface FaultPlan {
  /** Puts the fault in effect. */
  inject: () => Promise<void>;
  /** While the fault holds (FAULT_HOLD_MS when absent): what the scenario checks meanwhile; each sentence it answers is a broken promise. */
  during?: () => Promise<string[]>;
  /** Ends the fault (restarts what it killed); the recovery clock starts once it resolves. */
  heal: () => Promise<void>;
  /** After recovery, before the workload stops: what else must have happened (a big operation finished). */
  after?: () => Promise<string[]>;
  /**
   * After the checker, whatever happened before: takes away what the scenario added to the system
   * (a replica), so that the next scenario meets the system every other one does.
   */
  tearDown?: () => Promise<string[]>;
}

export interface ScenarioReport {
  name: string;
  /** How long healing took: for a killed process, its replacement's start until its own /readyz. */
  healMs: number;
  /** The host's 1-minute load average when the scenario ended. */
  loadAverage: number;
  recovery: Recovery;
  /** Every promise the scenario saw broken; the suite expects none. */
  broken: string[];
  /** Retried tries by reason, over every client. */
  retried: Record<string, number>;
  rounds: number;
  ms: number;
}

/** The projects and users of the run. */
export interface Cast {
  /** Project A: two committers, the locker, the intruder, the restorer, a reader. */
  alice: Actor;
  bob: Actor;
  carol: Actor;
  dave: Actor;
  /** Project B, the "other project" that must keep working: a committer and a reader. */
  erin: Actor;
  /** Project C: the big operations (a 25,000-file commit, a large restore). */
  frank: Actor;
  /** How the recovery probe calls the API, in a project of its own. */
  probeAs: (giveUp: () => boolean) => Actor;
}

export interface FaultSuite {
  system: FaultSystem;
  findings: Findings;
  ledger: Ledger;
  workload: Workload;
  cast: Cast;
  clients: ObservedClient[];
  supervisor: Supervisor;
  run(name: string, plan: FaultPlan): Promise<ScenarioReport>;
  stop(): Promise<void>;
}

export async function startFaultSuite(): Promise<FaultSuite> {
  const began = performance.now();
  const system = await startFaultSystem();
  process.stdout.write(`[faults] infrastructure and ${system.stack.all.length} processes up in ${Math.round(performance.now() - began)} ms\n`);
  try {
    const suite = await castAndWorkload(system);
    process.stdout.write(`[faults] projects and workload set up in ${Math.round(performance.now() - began)} ms\n`);
    return suite;
  } catch (error) {
    await system.stop();
    throw error;
  }
}

async function castAndWorkload(system: FaultSystem): Promise<FaultSuite> {
  const { stack } = system;
  const findings = new Findings();
  const ledger = new Ledger();
  const workload = new Workload(ledger);
  const clients: ObservedClient[] = [];
  const actor = (name: string, p: SeededProject, giveUp: () => boolean = workload.giveUp): Actor => {
    const api = new ObservedClient(stack.gatewayUrls, { authorization: `Bearer ${p.key}`, 'x-device-id': p.deviceId }, findings, giveUp);
    clients.push(api);
    return { name, projectId: p.projectId, userId: p.userId, api };
  };
  const a = await stack.seed.project();
  const member = (name: string) => stack.seed.member(a.orgId, a.projectId, 'member', name);
  const probeProject = await stack.seed.project();
  const cast: Cast = {
    alice: actor('alice', a),
    bob: actor('bob', await member('Bob')),
    carol: actor('carol', await member('Carol')),
    dave: actor('dave', await member('Dave')),
    erin: actor('erin', await stack.seed.project()),
    frank: actor('frank', await stack.seed.project()),
    probeAs: (giveUp) => actor('probe', probeProject, giveUp),
  };

  workload.add('alice commits', workload.committer(cast.alice, 'alice'));
  workload.add('bob commits', workload.committer(cast.bob, 'bob'));
  workload.add('carol locks', await workload.lockerSetup(cast.carol));
  workload.add('bob intrudes', workload.intruder(cast.bob));
  workload.add('dave restores', await workload.restorerSetup(cast.dave, RESTORE_PATIENCE_MS));
  workload.add('alice syncs', workload.reader(cast.alice));
  workload.add('erin commits', workload.committer(cast.erin, 'erin'));
  workload.add('erin syncs', workload.reader(cast.erin));
  // The probe's bytes are stored once here, so every later probe is a deduplicated push.
  await workload.push(
    cast.probeAs(() => false),
    [{ path: 'probe/probe.bin', bytes: Buffer.from('the fault suite’s recovery probe') }],
  );

  const checker = new Checker(system, ledger, [cast.alice, cast.erin, cast.frank, cast.probeAs(() => false)]);
  const supervisor = new Supervisor(() => system.processes());
  supervisor.start();
  return {
    system,
    findings,
    ledger,
    workload,
    cast,
    clients,
    supervisor,
    run: (name, plan) => runScenario({ system, findings, workload, checker, cast, clients, supervisor }, name, plan),
    async stop() {
      supervisor.stop();
      await system.stop();
    },
  };
}

interface ScenarioContext {
  system: FaultSystem;
  findings: Findings;
  workload: Workload;
  checker: Checker;
  cast: Cast;
  clients: ObservedClient[];
  supervisor: Supervisor;
}

/**
 * One fault, end to end: the workload runs, every worker completes a round, the fault is injected
 * and held, then healed; recovery is measured; every worker must complete a round again; the
 * workload stops and the checker reads everything back.
 */
async function runScenario(ctx: ScenarioContext, name: string, plan: FaultPlan): Promise<ScenarioReport> {
  const { system, findings, workload } = ctx;
  const began = performance.now();
  findings.begin(name);
  const retriedBefore = totalRetries(ctx.clients);
  const roundsBefore = sum(workload.progress);
  const broken: string[] = [];
  // Phases go to stdout as they pass: a scenario that hangs shows where.
  const mark = (phase: string) => process.stdout.write(`[faults] ${name} +${Math.round(performance.now() - began)} ms: ${phase}\n`);
  workload.start();
  broken.push(...(await untilEveryWorkerProgressed(workload, workload.snapshot(), 'before the fault')));

  mark('inject');
  // A plan that throws (its large operation never got under way) is one more broken promise; the
  // fault is healed and the workload stopped whatever happened, so the next scenario starts clean.
  const step = async (what: string, fn: () => Promise<string[] | void>) => {
    try {
      broken.push(...((await fn()) ?? []));
    } catch (error) {
      broken.push(`${what}: ${(error as Error).message}`);
    }
  };
  await step('inject', () => plan.inject());
  await step('during the fault', () => (plan.during ? plan.during() : delay(FAULT_HOLD_MS)));
  mark('heal');
  const healing = performance.now();
  await step('heal', () => plan.heal());
  const healMs = Math.round(performance.now() - healing);
  const recovery = await measureRecovery(system, workload, ctx.cast.probeAs);
  mark(
    `recovered in ${recovery.ms ?? 'never'} ms (ready ${recovery.readyMs ?? 'never'}, probe ${recovery.probedMs ?? 'never'})` +
      (recovery.failingAtLimit.length > 0 ? `; failing at the limit: ${recovery.failingAtLimit.join('; ')}` : ''),
  );
  broken.push(...(await untilEveryWorkerProgressed(workload, workload.snapshot(), 'after recovery')));
  if (plan.after) await step('after recovery', plan.after);

  mark('stop the workload');
  const failures = await workload.stop();
  broken.push(...failures.map((f) => `worker failed: ${f.message}`));
  mark('check');
  broken.push(...(await ctx.checker.check()));
  mark('checked');
  if (plan.tearDown) await step('tear down', plan.tearDown);
  broken.push(...ctx.supervisor.takeCrashes());
  broken.push(...system.processes().flatMap((p) => p.unhandledRejections().map((r) => `${p.name}: unhandled rejection ${JSON.stringify(r).slice(0, 300)}`)));
  broken.push(...findings.of(name).map(describeFinding));
  return {
    name,
    healMs,
    loadAverage: loadavg()[0],
    recovery,
    broken: [...new Set(broken)],
    retried: diff(totalRetries(ctx.clients), retriedBefore),
    rounds: sum(workload.progress) - roundsBefore,
    ms: Math.round(performance.now() - began),
  };
}

async function untilEveryWorkerProgressed(workload: Workload, since: Map<string, number>, when: string): Promise<string[]> {
  const deadline = performance.now() + PROGRESS_WAIT_MS;
  while (performance.now() < deadline) {
    if (workload.failures().length > 0) return [];
    if (workload.laggingSince(since).length === 0) return [];
    await delay(100);
  }
  return [`no round completed ${when} within ${PROGRESS_WAIT_MS} ms by: ${workload.laggingSince(since).join(', ')}`];
}

function describeFinding(f: Finding): string {
  return `${f.request} at +${f.atMs} ms: ${f.what}`;
}

function totalRetries(clients: ObservedClient[]): Map<string, number> {
  const total = new Map<string, number>();
  for (const c of clients) for (const [reason, n] of c.retried) total.set(reason, (total.get(reason) ?? 0) + n);
  return total;
}

function diff(now: Map<string, number>, before: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...now].map(([reason, n]) => [reason, n - (before.get(reason) ?? 0)] as const).filter(([, n]) => n > 0));
}

function sum(progress: Map<string, number>): number {
  return [...progress.values()].reduce((a, b) => a + b, 0);
}
