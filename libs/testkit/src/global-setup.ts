import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testLogDir } from './test-logs.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * Runs once before the integration tests, in vitest's main process before any worker starts.
 *
 * The browser tests serve the dashboard's build (clients/web/dist): it is built here when missing
 * or stale, never by the tests, because two workers building it at once on a clean clone would
 * each empty dist/ (Vite's emptyOutDir) under the other. The repository's Node 24 runs the script
 * (it is TypeScript), whatever Node runs vitest.
 *
 * The S3 tests need the real S3 that scripts/swift-s3.sh installs and starts (idempotent; seconds
 * when already installed). Set TEST_S3_ENDPOINT to use another S3 instead.
 *
 * The run folder of logs and secrets (test-logs.ts) starts empty: the check after the run must see
 * this run's lines and secrets only.
 *
 * Every Node started from here on (the workers, and the service processes, CLIs and fixtures the
 * tests spawn) inherits Node's compile cache: a run spawns hundreds of processes that load the same
 * modules, and each would otherwise compile them all again on a machine whose cores the tests share.
 * Node keys each entry by its version and the source's hash, so a stale entry is never used.
 */
export default async function setup(): Promise<void> {
  process.env.NODE_COMPILE_CACHE ??= path.join(tmpdir(), 'lode-node-compile-cache');
  rmSync(testLogDir(), { recursive: true, force: true });
  mkdirSync(testLogDir(), { recursive: true });
  execFileSync(path.join(REPO_ROOT, 'node_modules/.bin/node'), [path.join(REPO_ROOT, 'clients/web/build-if-stale.ts')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  if (process.env.TEST_S3_ENDPOINT || (await portOpen(8070))) return;
  execFileSync('bash', [path.join(REPO_ROOT, 'scripts/swift-s3.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
}
