import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECOVERY_LIMIT_MS } from './deadlines.ts';
import { FAULT_HOLD_MS, startFaultSuite, type FaultPlan, type FaultSuite, type ScenarioReport } from './fault-suite.ts';

/**
 * Issue 16, deliverable 2: the standing fault suite. The system runs as separate processes on a
 * Postgres, NATS, Redis and storage proxy of the suite's own while a mixed workload records every
 * acknowledged write; each scenario breaks one thing, heals it, measures recovery and checks that
 * nothing acknowledged was lost or duplicated. `npm run test:faults`; the scenarios run in order
 * on one system, each leaving it healed.
 */
describe('the fault suite', () => {
  let suite: FaultSuite;
  const reports: ScenarioReport[] = [];

  beforeAll(async () => {
    suite = await startFaultSuite();
  });
  afterAll(async () => {
    for (const r of reports) process.stdout.write(`[faults] ${r.name}: recovered in ${r.recovery.ms ?? 'never'} ms; ${r.rounds} rounds in ${r.ms} ms; retried ${JSON.stringify(r.retried)}\n`);
    await suite?.stop();
  });

  const scenario = (name: string, plan: (s: FaultSuite) => FaultPlan) =>
    it(name, async () => {
      const report = await suite.run(name, plan(suite));
      reports.push(report);
      expect(report.broken, `what broke in "${name}"`).toEqual([]);
      expect(report.recovery.failing, `still failing ${report.recovery.ms ?? 'long'} ms after the fault ended`).toEqual([]);
      expect(report.recovery.ms, `recovery of "${name}"`).toBeLessThanOrEqual(RECOVERY_LIMIT_MS);
    });

  scenario('every Postgres backend terminated, three times', ({ system }) => ({
    async inject() {
      for (let i = 0; i < 3; i++) {
        await system.postgres.terminateBackends(system.databaseName);
        await delay(FAULT_HOLD_MS / 3);
      }
    },
    during: async () => [],
    heal: async () => undefined,
  }));
});
