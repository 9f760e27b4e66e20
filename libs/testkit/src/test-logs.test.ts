import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResponse } from './client.ts';
import { checkTestLogs } from './log-check.ts';
import { flushTestLogs, keepOutput, keepTestLogs, testLogger } from './test-logs.ts';

/** A test file of the run, as the setup file names it; its files land under the run folder by this path. */
const TEST_FILE = path.resolve(import.meta.dirname, '../../../services/gateway/test/example.test.ts');

describe("a test file's log and secrets in the run folder", () => {
  let dir: string;
  const original = process.env.LODE_TEST_LOG_DIR;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lode-test-logs-'));
    process.env.LODE_TEST_LOG_DIR = dir;
    keepTestLogs(TEST_FILE);
  });
  afterAll(async () => {
    process.env.LODE_TEST_LOG_DIR = original;
    await rm(dir, { recursive: true, force: true });
  });

  const apiKey = `lode_${'k3Y'.repeat(13)}Z`;
  const logOf = () => readFile(path.join(dir, 'services/gateway/test/example.test.ts.log'), 'utf8');
  const secretsOf = async () =>
    (await readFile(path.join(dir, 'services/gateway/test/example.test.ts.secrets'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; value: string });

  it('records the secrets a response hands out: keys, secret fields, URL tokens and signatures, cookies', async () => {
    const csrfToken = 'c'.repeat(43);
    const body = {
      key: apiKey,
      csrfToken,
      webhooks: [{ id: 'w1', secret: 'whsec-0123456789abcdef' }],
      url: 'https://lode.example.com/sign-in#token=' + 't'.repeat(43),
      uploadUrl: 'http://127.0.0.1:1/storage/v1/objects/p/x?expires=1&signature=' + 's'.repeat(64),
      // Too short to be any secret Lode makes: an echoed input, never recorded.
      token: 'short',
      idempotencyKey: 'not-a-secret-but-long-enough',
    };
    const headers = new Headers([['set-cookie', `lode_session=${'v'.repeat(43)}; Path=/; HttpOnly`]]);
    await readResponse(new Response(JSON.stringify(body), { status: 201, headers }));

    expect(await secretsOf()).toEqual([
      { kind: 'api key', value: apiKey },
      { kind: 'csrfToken', value: csrfToken },
      { kind: 'secret', value: 'whsec-0123456789abcdef' },
      { kind: 'token in url', value: 't'.repeat(43) },
      { kind: 'signature in uploadUrl', value: 's'.repeat(64) },
      { kind: 'cookie lode_session', value: 'v'.repeat(43) },
    ]);
  });

  it('keeps the in-process logger at info and child processes whole-line, and the check finds a secret either wrote', async () => {
    testLogger('test').info({ route: '/admin/v1/orgs' }, 'request completed');
    testLogger('test').debug({ authorization: `Bearer ${apiKey}` }, 'below info: not kept');
    const child = spawn(
      process.execPath,
      [
        '-e',
        `process.stdout.write('{"msg":"one"}\\n{"msg":'); setTimeout(() => { process.stdout.write('"two"}\\n'); console.error('warned ${apiKey}'); }, 50)`,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    keepOutput('fixture', child);
    await once(child, 'close');
    await flushTestLogs();

    const lines = (await logOf()).trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringContaining('"msg":"request completed"'),
      '{"msg":"one"}',
      '{"msg":"two"}',
      `[fixture ${child.pid} stderr] warned ${apiKey}`,
    ]);
    expect(checkTestLogs(dir).leaks).toEqual([{ file: 'services/gateway/test/example.test.ts.log', line: 4, kind: 'api key', prefix: 'lode_k…' }]);
  });
});
