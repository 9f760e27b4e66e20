// k6 run -e PROFILE=smoke|load|stress|soak|spike -e LODE_URL=... -e LODE_ADMIN_TOKEN=... loadtest/k6/history.ts
// (loadtest/README.md lists every setting).
import { buildOptions } from './lib/options.ts';
import type { RunData } from './lib/run-data.ts';
import { createRun, endRun } from './lib/setup.ts';
import { historyFlow } from './scenarios/history.ts';

export const options = buildOptions([historyFlow]);

export function setup(): RunData {
  return createRun([historyFlow]);
}

export function history(run: RunData): void {
  historyFlow.iterate(run);
}

export default history;

export function teardown(run: RunData): void {
  endRun(run);
}
