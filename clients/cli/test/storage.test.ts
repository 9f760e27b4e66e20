import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LodeClient } from '@lode/sdk';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser } from './cli-runner.ts';
import { emptyDir, expectOk, newWorkspace, ownerAndMember, writeText } from './workspace-fixtures.ts';

/** Each step starts a CLI process, seconds apiece on a loaded machine. */
const TIMEOUT = 240_000;

describe('lode usage and lode obliterate', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
  });
  afterAll(async () => stack?.stop());

  it(
    'reports usage after a push, obliterates a file after its dry run, shows it removed in history, and pull reports version_purged',
    async () => {
      const { owner, ada, bo, ws } = await ownerAndMember(stack);
      await writeFile(path.join(ws, 'level.umap'), randomBytes(2000));
      await writeText(ws, 'Secrets/keys.bin', 'first secret');
      expectOk(await ada.run(ws, ['push', '-m', 'one']));
      await writeText(ws, 'Secrets/keys.bin', 'second secret, longer');
      expectOk(await ada.run(ws, ['push', '-m', 'two']));

      const usage = expectOk(await ada.run(ws, ['usage', '--prefix', 'Secrets', '--by-extension', '--json'])).json;
      expect(usage).toMatchObject({ projectId: owner.projectId, versions: 3, objects: 3, logicalBytes: 2000 + 12 + 21, quota: null });
      expect(usage.byPrefix).toMatchObject({ files: 1, versions: 2, logicalBytes: 33 });
      expect(usage.byExtension).toEqual([expect.objectContaining({ extension: 'bin', files: 1, versions: 2 })]);
      const human = expectOk(await ada.run(ws, ['usage', '--by-extension'])).stdout;
      expect(human).toMatch(/logical +2\.0 KiB in 3 versions/);
      expect(human).toMatch(/quota +none/);
      expect(human).toMatch(/\.umap +1 +1 +2\.0 KiB +2\.0 KiB\n +\.bin +1 +2 +33 B +33 B/);

      // A member may read usage, but neither obliterate nor see a plan.
      expectOk(await bo.run(await emptyDir(), ['usage']));
      const refused = await bo.run(await emptyDir(), ['obliterate', 'Secrets/keys.bin', '--dry-run', '--json']);
      expect(refused.code).toBe(1);
      expect(refused.json.error).toMatchObject({ code: 'forbidden', status: 403 });

      const plan = expectOk(await ada.run(ws, ['obliterate', 'Secrets/keys.bin', '--dry-run', '--json'])).json;
      expect(plan).toMatchObject({ dryRun: true, path: 'Secrets/keys.bin', versionCount: 2, logicalBytes: 33, freedObjects: 2, obliteratedAt: null });
      expect(plan.confirmToken).toEqual(expect.any(String));
      // One version, by number: its file looked up by path, the CLI's own --version left alone.
      const one = expectOk(await ada.run(ws, ['obliterate', 'level.umap', '--version', '1', '--dry-run', '--json'])).json;
      expect(one).toMatchObject({ dryRun: true, path: 'level.umap', versionCount: 1, versions: [expect.objectContaining({ version: 1, size: 2000 })] });
      const planText = expectOk(await ada.run(ws, ['obliterate', 'Secrets/keys.bin', '--dry-run'])).stdout;
      expect(planText).toContain('Would obliterate 2 versions of Secrets/keys.bin');
      expect(planText).toContain('Nothing was removed.');

      // Not a terminal, no --yes: refused before anything is removed.
      const unconfirmed = await ada.run(ws, ['obliterate', 'Secrets/keys.bin']);
      expect(unconfirmed.code).toBe(2);
      expect(unconfirmed.stderr).toContain('run again with --yes');
      expect(expectOk(await ada.run(ws, ['history', 'Secrets/keys.bin', '--json'])).json.data.every((v: { purged: unknown }) => v.purged === null)).toBe(true);

      const done = expectOk(await ada.run(ws, ['obliterate', 'Secrets/keys.bin', '--yes', '--json'])).json;
      expect(done).toMatchObject({ dryRun: false, versionCount: 2, confirmToken: null });
      expect(done.obliteratedAt).toEqual(expect.any(String));

      const history = expectOk(await ada.run(ws, ['history', 'Secrets/keys.bin', '--json'])).json.data;
      expect(history).toEqual([
        expect.objectContaining({ version: 2, downloadUrl: null, purged: expect.objectContaining({ reason: 'obliterate' }) }),
        expect.objectContaining({ version: 1, downloadUrl: null, purged: expect.objectContaining({ reason: 'obliterate' }) }),
      ]);
      const historyText = expectOk(await ada.run(ws, ['history', 'Secrets/keys.bin'])).stdout;
      expect(historyText).toMatch(new RegExp(`v2 .*\\[removed \\S+ by ${history[0].purged.by.userName}: obliterate\\]`));

      const again = expectOk(await ada.run(ws, ['usage', '--json'])).json;
      expect(again).toMatchObject({ versions: 1, logicalBytes: 2000 });

      // The branch's tip of the file is obliterated: a fresh workspace gets the rest and names it.
      const fresh = await newWorkspace(bo);
      const pulled = await bo.run(fresh, ['pull', '--json']);
      expect(pulled.code).toBe(1);
      expect(pulled.json.error.failures).toEqual([expect.objectContaining({ path: 'Secrets/keys.bin', code: 'version_purged' })]);
      const pulledText = await bo.run(fresh, ['pull']);
      expect(pulledText.stderr).toContain('obliterated by an org owner or admin');
    },
    TIMEOUT,
  );

  it(
    "names the quota's use when a push is refused by it, and shows the quota in usage",
    async () => {
      const owner = await stack.seed.project();
      const ada = await CliUser.create(stack.baseUrl, owner);
      const client = new LodeClient({ url: stack.baseUrl, key: owner.key, deviceId: owner.deviceId });
      const ws = await newWorkspace(ada);
      await writeFile(path.join(ws, 'small.bin'), randomBytes(1000));
      expectOk(await ada.run(ws, ['push', '-m', 'small']));
      expect(await client.setQuota(4000)).toMatchObject({ quota: { bytes: 4000, source: 'project' }, projectBytes: 4000 });
      expect(expectOk(await ada.run(ws, ['usage'])).stdout).toMatch(/quota +1000 B of 3\.9 KiB \(25\.0 % used, project quota\)/);

      await writeFile(path.join(ws, 'big.bin'), randomBytes(5000));
      const push = await ada.run(ws, ['push', '-m', 'big']);
      expect(push.code).toBe(1);
      expect(push.stderr).toContain("The project's storage quota is reached: 1000 B of its 3.9 KiB project quota are used (25.0 %)");
      const json = await ada.run(ws, ['push', '-m', 'big', '--json']);
      expect(json.json.error).toMatchObject({ code: 'quota_exceeded', failures: [expect.objectContaining({ path: 'big.bin', code: 'quota_exceeded' })] });
      expect(await client.setQuota(null)).toMatchObject({ quota: null });
      expectOk(await ada.run(ws, ['push', '-m', 'big']));
    },
    TIMEOUT,
  );

  it(
    "shows and sets the project's and the org's quotas, and the org's usage to its owners only",
    async () => {
      const { owner, ada, bo, ws } = await ownerAndMember(stack);
      await writeFile(path.join(ws, 'level.umap'), randomBytes(2048));
      expectOk(await ada.run(ws, ['push', '-m', 'one']));
      expect((await stack.seed.admin.request('PUT', `/admin/v1/orgs/${owner.orgId}/quota`, { bytes: 2 ** 30 })).status).toBe(200);

      const set = expectOk(await ada.run(ws, ['quota', 'set', '50MiB', '--org', '--json'])).json;
      expect(set).toEqual({ quota: { bytes: 50 * 2 ** 20, source: 'org' }, operatorBytes: 2 ** 30, orgBytes: 50 * 2 ** 20 });
      const shown = expectOk(await ada.run(ws, ['quota'])).stdout;
      expect(shown).toMatch(/Project +2\.0 KiB stored, no quota/);
      expect(shown).toMatch(/Organization +2\.0 KiB of 50\.0 MiB \(0\.0 % used, org quota\)/);
      const org = expectOk(await ada.run(ws, ['usage', '--org', '--json'])).json;
      expect(org).toMatchObject({
        orgId: owner.orgId,
        storedBytes: 2048,
        projects: [expect.objectContaining({ projectId: owner.projectId, storedBytes: 2048 })],
      });

      // A member sees the project's quota, not the org's figures, and sets neither.
      expect(expectOk(await bo.run(await emptyDir(), ['quota'])).stdout).toMatch(/only the organization's owners and admins/);
      const refused = await bo.run(await emptyDir(), ['quota', 'set', 'none', '--org', '--json']);
      expect(refused.json.error).toMatchObject({ code: 'forbidden', status: 403 });
    },
    TIMEOUT,
  );
});
