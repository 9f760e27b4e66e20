import { defineConfig } from 'vitest/config';

// Unit tests live beside the code (src/**/*.test.ts); integration tests under <package>/test talk to
// the machine's real Postgres, Redis, NATS and S3, each run in its own database and subject namespace.
export default defineConfig({
  test: {
    // CI also writes a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.ci/test-results.json' },
    projects: [
      { test: { name: 'unit', include: ['{libs,services}/*/src/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['{libs,services}/*/test/**/*.test.ts', 'deploy/test/**/*.test.ts'],
          globalSetup: ['libs/testkit/src/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
