import { setTimeout as delay } from 'node:timers/promises';
import type { SyncAnswer } from './api-shapes.ts';
import { RECOVERY_LIMIT_MS, RECOVERY_WAIT_MS } from './deadlines.ts';
import type { FaultSystem } from './fault-system.ts';
import type { Actor, Workload } from './workload.ts';

const POLL_MS = 100;

export interface Recovery {
  /** From the fault's end until every process was ready and the probe had gone through; undefined if that never came. */
  ms: number | undefined;
  /** When every /readyz answered 200, and when the probe went through. */
  readyMs: number | undefined;
  probedMs: number | undefined;
  /** What was still failing when the wait ended (empty once recovered). */
  failing: string[];
  /** What was failing RECOVERY_LIMIT_MS after the fault ended, had it not recovered by then. */
  failingAtLimit: string[];
}

/**
 * Measures how long the system takes to recover once a fault has ended: every process's own
 * /readyz and each gateway's API /readyz answer 200, and a probe through the API goes through —
 * a push of known bytes (deduplicated: no storage write), its commit, and a sync that includes it.
 */
export async function measureRecovery(system: FaultSystem, workload: Workload, probeAs: (giveUp: () => boolean) => Actor): Promise<Recovery> {
  const began = performance.now();
  const elapsed = () => Math.round(performance.now() - began);
  let probedAt: number | undefined;
  let probeFailure = '';
  const probing = runProbe(
    workload,
    probeAs(() => elapsed() > RECOVERY_WAIT_MS),
  ).then(
    () => (probedAt = elapsed()),
    (error: unknown) => (probeFailure = (error as Error).message),
  );
  let failing: string[] = [];
  let failingAtLimit: string[] | undefined;
  let readyAt: number | undefined;
  const probeState = () => (probedAt === undefined ? [`probe through the API: ${probeFailure || 'not through yet'}`] : []);
  while (elapsed() < RECOVERY_WAIT_MS) {
    failing = await notReady(system);
    if (failing.length === 0) {
      readyAt = elapsed();
      break;
    }
    if (failingAtLimit === undefined && elapsed() > RECOVERY_LIMIT_MS) failingAtLimit = [...failing, ...probeState()];
    await delay(POLL_MS);
  }
  while (probedAt === undefined && !probeFailure && elapsed() < RECOVERY_WAIT_MS) {
    if (failingAtLimit === undefined && elapsed() > RECOVERY_LIMIT_MS) failingAtLimit = probeState();
    await Promise.race([probing, delay(POLL_MS)]);
  }
  failing.push(...probeState());
  const ms = readyAt !== undefined && probedAt !== undefined ? Math.max(readyAt, probedAt) : undefined;
  return { ms, readyMs: readyAt, probedMs: probedAt, failing, failingAtLimit: ms !== undefined && ms <= RECOVERY_LIMIT_MS ? [] : (failingAtLimit ?? []) };
}

/** Processes (and gateways' APIs) whose /readyz does not answer 200 right now. */
export async function notReady(system: FaultSystem): Promise<string[]> {
  const probes = [
    ...system.processes().map((p) => ({ name: `${p.name} ${p.opsUrl}`, url: `${p.opsUrl}/readyz` })),
    ...system.stack.gatewayUrls.map((url) => ({ name: `gateway API ${url}`, url: `${url}/readyz` })),
  ];
  const answers = await Promise.all(
    probes.map(async ({ name, url }) => {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
        return res.status === 200 ? undefined : `${name}: ${res.status} ${await res.text()}`;
      } catch (error) {
        return `${name}: ${(error as Error).message}`;
      }
    }),
  );
  return answers.filter((a): a is string => a !== undefined);
}

const PROBE_BYTES = Buffer.from('the fault suite’s recovery probe');

async function runProbe(workload: Workload, probe: Actor): Promise<void> {
  const pushed = await workload.push(probe, [{ path: 'probe/probe.bin', bytes: PROBE_BYTES }]);
  const committed = await workload.commit(probe, pushed, 'recovery probe');
  if (!('id' in committed)) throw new Error(`probe commit refused: ${committed.code}`);
  for (;;) {
    const res = await probe.api.call<SyncAnswer>('POST', `/api/v1/projects/${probe.projectId}/sync`, { files: [], includeRemoteOnly: true }, { expect: [200] });
    if (res.body.latestCommitSeq >= committed.sequenceNum) return;
    await delay(POLL_MS);
  }
}
