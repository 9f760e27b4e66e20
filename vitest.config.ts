import { defineConfig } from 'vitest/config';

/**
 * The fault suite (services/system/faults, `npm run test:faults`) kills and restarts servers of its
 * own for minutes: it is a project only when that script asks for it, so `vitest run` never runs it.
 */
const faultSuite = process.env.LODE_FAULT_SUITE === '1';

/**
 * Every test file of a project with this setup logs at `info` to a file of the run folder
 * (.ci/test-logs, or LODE_TEST_LOG_DIR), and records there the secrets it was handed: `npm test`
 * then checks that no log holds one (scripts/check-test-logs.ts).
 */
const keepTestLogs = 'libs/testkit/src/keep-test-logs.ts';

// Unit tests live beside the code (src/**/*.test.ts, and scripts/ for the repository's own tooling);
// integration tests under <package>/test talk to the machine's real Postgres, Redis, NATS and S3, each
// run in its own database and subject namespace.
export default defineConfig({
  test: {
    // CI also writes a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: faultSuite ? '.ci/fault-results.json' : '.ci/test-results.json' },
    projects: [
      { test: { name: 'unit', include: ['{libs,services,clients}/*/src/**/*.test.ts', 'scripts/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['{libs,services,clients}/*/test/**/*.test.ts', 'deploy/test/**/*.test.ts'],
          globalSetup: ['libs/testkit/src/global-setup.ts'],
          setupFiles: [keepTestLogs],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      ...(faultSuite
        ? [
            {
              test: {
                name: 'faults',
                include: ['services/system/faults/**/*.faults.test.ts'],
                globalSetup: ['libs/testkit/src/global-setup.ts'],
                setupFiles: [keepTestLogs],
                // Scenarios run in order on one system; each waits out its fault, recovery and checks.
                testTimeout: 240_000,
                hookTimeout: 240_000,
                fileParallelism: false,
              },
            },
          ]
        : []),
    ],
  },
});
