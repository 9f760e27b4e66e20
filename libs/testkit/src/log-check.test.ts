import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkTestLogs, describeLogCheck } from './log-check.ts';

describe('the check of a run folder for secrets in its logs', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lode-log-check-'));
    await mkdir(path.join(dir, 'services/gateway/test'), { recursive: true });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const apiKey = `lode_${'Ab3'.repeat(13)}x`;
  const secretsOf = (file: string, secrets: { kind: string; value: string }[]) =>
    writeFile(path.join(dir, file), secrets.map((secret) => `${JSON.stringify(secret)}\n`).join(''));
  const logOf = (file: string, lines: string[]) => writeFile(path.join(dir, file), lines.map((line) => `${line}\n`).join(''));

  it('finds a planted secret and names the file, the line and its kind, printing only a prefix', async () => {
    await secretsOf('services/gateway/test/admin.test.ts.secrets', [
      { kind: 'api key', value: apiKey },
      { kind: 'admin token', value: 'admin-token_abc_0123456789' },
    ]);
    await logOf('services/gateway/test/admin.test.ts.log', ['{"level":30,"msg":"started"}', '{"level":30,"msg":"request completed"}']);
    await logOf('services/gateway/test/other.test.ts.log', ['{"level":30,"msg":"fine"}', `{"level":40,"msg":"refused","authorization":"Bearer ${apiKey}"}`]);

    const check = checkTestLogs(dir);

    expect(check.problems).toEqual([]);
    expect(check.leaks).toEqual([{ file: 'services/gateway/test/other.test.ts.log', line: 2, kind: 'api key', prefix: 'lode_A…' }]);
    const report = describeLogCheck(check);
    expect(report).toContain('services/gateway/test/other.test.ts.log:2: api key (lode_A…)');
    expect(report).not.toContain(apiKey);
  });

  it('passes a run whose logs hold none of its secrets', async () => {
    await secretsOf('services/gateway/test/admin.test.ts.secrets', [{ kind: 'api key', value: apiKey }]);
    await logOf('services/gateway/test/admin.test.ts.log', ['{"level":30,"msg":"request completed","keyId":"0b3e"}']);

    const check = checkTestLogs(dir);

    expect(check).toMatchObject({ leaks: [], problems: [], secrets: 1, logFiles: 1 });
    expect(describeLogCheck(check)).toBe('');
  });

  it('fails a run that kept no log lines, or recorded no secrets: the plumbing broke', async () => {
    await secretsOf('services/gateway/test/admin.test.ts.secrets', [{ kind: 'api key', value: apiKey }]);
    await logOf('services/gateway/test/admin.test.ts.log', []);
    expect(checkTestLogs(dir).problems).toEqual([expect.stringContaining('no log lines were kept')]);

    await rm(path.join(dir, 'services/gateway/test/admin.test.ts.secrets'));
    await logOf('services/gateway/test/admin.test.ts.log', ['{"level":30,"msg":"started"}']);
    expect(checkTestLogs(dir).problems).toEqual([expect.stringContaining('no secrets were recorded')]);

    expect(checkTestLogs(path.join(dir, 'missing')).problems).toHaveLength(2);
  });
});
