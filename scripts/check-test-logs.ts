/**
 * Run by `npm test` after vitest: fails the command when a log of the run holds a secret the run
 * created, or when the run kept no logs or recorded no secrets (see libs/testkit/src/log-check.ts).
 * The run folder is .ci/test-logs, or LODE_TEST_LOG_DIR.
 */
import { checkTestLogs, describeLogCheck } from '@lode/testkit/log-check';
import { testLogDir } from '@lode/testkit/test-logs';

const dir = testLogDir();
const check = checkTestLogs(dir);
const report = describeLogCheck(check);
if (report) {
  console.error(report);
  process.exitCode = 1;
} else {
  const megabytes = (check.logBytes / 1024 / 1024).toFixed(1);
  console.log(`no secret of the run in its logs: ${check.secrets} secrets, ${check.logFiles} log files (${megabytes} MiB) in ${dir}`);
}
