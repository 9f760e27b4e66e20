import { afterAll, beforeAll } from 'vitest';
import type { SeededProject } from '@lode/testkit';
import { startTestStack, type StackOptions, type TestStack } from './stack.ts';

/**
 * For the enclosing describe: a test stack with one seeded project, started before its tests and
 * stopped after them. Read `stack` and `project` inside the tests.
 */
export function stackWithProject(options: StackOptions): { readonly stack: TestStack; readonly project: SeededProject } {
  const started = {} as { stack: TestStack; project: SeededProject };
  beforeAll(async () => {
    started.stack = await startTestStack(options);
    started.project = await started.stack.seed.project();
  });
  afterAll(async () => started.stack?.stop());
  return started;
}
