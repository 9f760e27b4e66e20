// k6 run -e PROFILE=smoke|load|stress|soak|spike -e LODE_URL=... -e LODE_ADMIN_TOKEN=... loadtest/k6/locks.ts
// (loadtest/README.md lists every setting).
import { buildOptions } from './lib/options.ts';
import type { RunData } from './lib/run-data.ts';
import { createRun, endRun } from './lib/setup.ts';
import { locksFlow } from './scenarios/locks.ts';

export const options = buildOptions([locksFlow]);

export function setup(): RunData {
  return createRun([locksFlow]);
}

export function locks(run: RunData): void {
  locksFlow.iterate(run);
}

export default locks;

export function teardown(run: RunData): void {
  endRun(run);
}
