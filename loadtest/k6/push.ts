// k6 run -e PROFILE=smoke|load|stress|soak|spike -e LODE_URL=... -e LODE_ADMIN_TOKEN=... loadtest/k6/push.ts
// (loadtest/README.md lists every setting).
import { buildOptions } from './lib/options.ts';
import type { RunData } from './lib/run-data.ts';
import { createRun, endRun } from './lib/setup.ts';
import { pushFlow } from './scenarios/push.ts';

export const options = buildOptions([pushFlow]);

export function setup(): RunData {
  return createRun([pushFlow]);
}

export function push(run: RunData): void {
  pushFlow.iterate(run);
}

export default push;

export function teardown(run: RunData): void {
  endRun(run);
}
