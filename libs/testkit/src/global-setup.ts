import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * Runs once before the integration tests: the S3 tests need the real S3 that scripts/swift-s3.sh
 * installs and starts (idempotent; seconds when already installed). Set TEST_S3_ENDPOINT to use
 * another S3 instead.
 */
export default async function setup(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  if (process.env.TEST_S3_ENDPOINT || (await portOpen(8070))) return;
  execFileSync('bash', [path.join(REPO_ROOT, 'scripts/swift-s3.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
}
