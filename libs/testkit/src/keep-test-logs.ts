import { afterAll, expect } from 'vitest';
import { flushTestLogs, keepTestLogs } from './test-logs.ts';

/**
 * Vitest setup file of the integration projects (vitest.config.ts): each test file's stacks and
 * processes log to the run folder at `info`, and the secrets its clients see are recorded there,
 * for the check after the run (scripts/check-test-logs.ts). Kept from before the test file is
 * imported, so a logger it makes at its top level writes there too. The afterAll runs after the
 * file's own (they unwind as a stack): the lines of every stop are in the file before the worker ends.
 */
const { testPath } = expect.getState();
if (!testPath) throw new Error('vitest named no test file: its logs would have nowhere to go');
keepTestLogs(testPath);
afterAll(flushTestLogs);
