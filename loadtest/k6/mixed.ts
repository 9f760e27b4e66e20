// Every flow at once, each in its own scenario at its own rate, as a studio's day mixes them:
// k6 run -e PROFILE=load -e LODE_URL=... -e LODE_ADMIN_TOKEN=... loadtest/k6/mixed.ts
import { buildOptions } from './lib/options.ts';
import type { RunData } from './lib/run-data.ts';
import { createRun, endRun } from './lib/setup.ts';
import { historyFlow } from './scenarios/history.ts';
import { locksFlow } from './scenarios/locks.ts';
import { pushFlow } from './scenarios/push.ts';
import { syncFlow } from './scenarios/sync.ts';

const flows = [pushFlow, syncFlow, locksFlow, historyFlow];

export const options = buildOptions(flows);

export function setup(): RunData {
  return createRun(flows);
}

export function push(run: RunData): void {
  pushFlow.iterate(run);
}

export function sync(run: RunData): void {
  syncFlow.iterate(run);
}

export function locks(run: RunData): void {
  locksFlow.iterate(run);
}

export function history(run: RunData): void {
  historyFlow.iterate(run);
}

export function teardown(run: RunData): void {
  endRun(run);
}
