import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { emptyDir, expectOk, ownerAndMember, writeText } from './workspace-fixtures.ts';

/** Each step starts a CLI process, seconds apiece on a loaded machine. */
const TIMEOUT = 240_000;

describe('lode retention', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
  });
  afterAll(async () => stack?.stop());

  it(
    'sets a rule, shows its dry run, asks before a run, removes exactly that, and history names the rule',
    async () => {
      const { ada, bo, ws } = await ownerAndMember(stack);
      for (const text of ['one', 'two, longer', 'three, the longest']) {
        await writeText(ws, 'Art/hero.psd', text);
        expectOk(await ada.run(ws, ['push', '-m', text]));
      }

      const refused = await bo.run(await emptyDir(), ['retention', 'set', '--glob', 'art/**', '--keep-last', '1', '--json']);
      expect(refused.code).toBe(1);
      expect(refused.json.error).toMatchObject({ code: 'forbidden', status: 403 });
      const set = expectOk(await ada.run(ws, ['retention', 'set', '--glob', 'art/**', '--keep-last', '1', '--json'])).json;
      expect(set.rules).toEqual([{ glob: 'art/**', keepLast: 1 }]);
      expect(expectOk(await bo.run(await emptyDir(), ['retention'])).stdout).toContain('art/**  keeps the newest 1 version');

      const plan = expectOk(await ada.run(ws, ['retention', '--dry-run', '--json'])).json;
      expect(plan).toMatchObject({ dryRun: true, versionCount: 2, fileCount: 1, logicalBytes: 3 + 11 });
      expect(plan.versions.map((v: { version: number; rule: string }) => [v.version, v.rule])).toEqual([
        [2, 'art/**'],
        [1, 'art/**'],
      ]);
      // Not a terminal, no --yes: refused before anything is removed.
      const unconfirmed = await ada.run(ws, ['retention', 'run']);
      expect(unconfirmed.code).toBe(2);
      expect(unconfirmed.stderr).toContain('run again with --yes');

      const done = expectOk(await ada.run(ws, ['retention', 'run', '--yes', '--json'])).json;
      expect(done).toMatchObject({ dryRun: false, versionCount: 2, confirmToken: null, appliedAt: expect.any(String) });
      const history = expectOk(await ada.run(ws, ['history', 'Art/hero.psd'])).stdout;
      expect(history).toMatch(/v2 .*\[removed \S+ by .+: retention rule art\/\*\*\]/);
      expect(history).toMatch(/v3 (?!.*removed)/);
    },
    TIMEOUT,
  );
});
