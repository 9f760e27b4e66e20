// k6 run -e PROFILE=smoke|load|stress|soak|spike -e LODE_URL=... -e LODE_ADMIN_TOKEN=... loadtest/k6/sync.ts
// (loadtest/README.md lists every setting).
import { buildOptions } from './lib/options.ts';
import type { RunData } from './lib/run-data.ts';
import { createRun, endRun } from './lib/setup.ts';
import { syncFlow } from './scenarios/sync.ts';

export const options = buildOptions([syncFlow]);

export function setup(): RunData {
  return createRun([syncFlow]);
}

export function sync(run: RunData): void {
  syncFlow.iterate(run);
}

export default sync;

export function teardown(run: RunData): void {
  endRun(run);
}
