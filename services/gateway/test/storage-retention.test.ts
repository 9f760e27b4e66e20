import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { describeContent } from '@lode/testkit';
import { StorageClient } from './storage-helpers.ts';

// Both storage drivers, and both buses: the commit and lock services answer retention over NATS too.
describe.each([
  { bus: 'local', storageDriver: 'local' },
  { bus: 'nats', storageDriver: 's3' },
] as const)('retention ($bus bus, $storageDriver storage)', ({ bus, storageDriver }) => {
  let stack: TestStack;
  let owner: StorageClient;
  let member: StorageClient;
  let stranger: StorageClient;
  const setRules = (client: StorageClient, rules: unknown) => client.api.request('PUT', client.url('/retention'), { rules });
  const dryRun = (client: StorageClient) => client.api.post(client.url('/retention/dry-run'), {});
  const run = (client: StorageClient, confirmToken: string) => client.api.post(client.url('/retention/run'), { confirmToken });

  beforeAll(async () => {
    stack = await startTestStack({ bus, storage: storageDriver });
    const project = await stack.seed.project();
    owner = new StorageClient(stack, project);
    member = new StorageClient(stack, await stack.seed.member(project.orgId, project.projectId, 'member'));
    stranger = new StorageClient(stack, await stack.seed.project());
  });
  afterAll(async () => stack?.stop());

  it('are set by owners and admins only, validated field by field, and never seen from another project', async () => {
    const rules = [{ glob: 'Levels/**/*.umap', keepLast: 3 }];
    expect((await setRules(member, rules)).status).toBe(403);
    expect((await dryRun(member)).status).toBe(403);
    const invalid = [
      [[{ glob: '/Levels/*.umap', keepLast: 1 }], 'rules.0.glob'],
      [[{ glob: 'a/**x/b', keepDays: 1 }], 'rules.0.glob'],
      [[{ glob: 'a/*.bin', keepLast: 0 }], 'rules.0.keepLast'],
      [[{ glob: 'a/*.bin', keepDays: 1.5 }], 'rules.0.keepDays'],
      [[{ glob: 'a/*.bin' }], 'rules.0.keepLast'],
      [Array.from({ length: 51 }, () => ({ glob: '**', keepLast: 1 })), 'rules'],
    ] as const;
    for (const [body, field] of invalid) {
      const response = await setRules(owner, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toMatchObject({ code: 'validation_failed', issues: [expect.objectContaining({ path: field })] });
    }

    const set = await setRules(owner, rules);
    expect(set.status).toBe(200);
    // Rules just set have never been applied, whenever the periodic job first runs them.
    expect(set.body).toMatchObject({ rules, updatedBy: { userId: owner.project.userId }, updatedAt: expect.any(String), lastRunAt: null });
    expect((await member.api.get(member.url('/retention'))).body.rules).toEqual(rules);
    // Another project's key reads and runs its own project's rules, never these.
    expect((await stranger.api.get(stranger.url('/retention'))).body).toMatchObject({ rules: [], updatedBy: null });
    expect((await stranger.api.get(owner.url('/retention'))).status).toBe(404);
    await stranger.push('Levels/x.umap', randomBytes(10));
    await stranger.push('Levels/x.umap', randomBytes(10));
    expect((await setRules(stranger, [{ glob: '**', keepLast: 1 }])).status).toBe(200);
    const foreign = await dryRun(stranger);
    expect(foreign.body).toMatchObject({ versionCount: 1 });
    expect((await run(owner, foreign.body.confirmToken)).status).toBe(403);
  });

  it.each(['run', 'schedule'] as const)(
    'remove exactly what the dry run listed (%s), keeping branch tips, staged and locked versions and shared content',
    async (mode) => {
      const at = (path: string) => `${mode}/${path}`;
      const shared = randomBytes(300);
      const a1 = await owner.push(at('Levels/a.umap'), shared);
      const dedup = await owner.push(at('Docs/shared.bin'), shared);
      expect(dedup.dedup).toBe(true);
      const a2 = await owner.push(at('Levels/a.umap'), randomBytes(20));
      await owner.commit([a1, dedup]);
      await owner.commit([a2]);
      // The feature branch's tip is a2; main moves on to a4, with a3 never committed.
      expect((await owner.api.post(owner.url('/branches'), { name: `feature-${mode}`, from: 'main' })).status).toBe(201);
      const a3 = await owner.push(at('Levels/a.umap'), randomBytes(30));
      const a4 = await owner.push(at('Levels/a.umap'), randomBytes(40));
      await owner.commit([a4]);
      // b1 is staged by an open draft; c is locked; d matches no rule.
      const b1 = await owner.push(at('Levels/b.umap'), randomBytes(11));
      const b2 = await owner.push(at('Levels/b.umap'), randomBytes(12));
      const b3 = await owner.push(at('Levels/b.umap'), randomBytes(13));
      await owner.commit([b3]);
      const draft = await owner.api.post(owner.url('/drafts'), { message: 'pending' });
      expect(draft.status).toBe(201);
      const staged = await owner.api.post(owner.url(`/drafts/${draft.body.id}/files`), { fileVersions: [{ ...b1, action: 'modify' }] });
      expect(staged.status, JSON.stringify(staged.body)).toBe(200);
      await owner.push(at('Levels/c.umap'), randomBytes(5));
      const c2 = await owner.push(at('Levels/c.umap'), randomBytes(6));
      expect((await owner.api.post(owner.url('/locks'), { fileIds: [c2.fileId] })).status).toBe(200);
      await owner.push(at('Other/d.umap'), randomBytes(7));
      await owner.push(at('Other/d.umap'), randomBytes(8));

      expect(
        (
          await setRules(owner, [
            { glob: `${mode}/levels/**/*.UMAP`, keepLast: 1 },
            { glob: `${mode}/Other/**`, keepDays: 30 },
          ])
        ).status,
      ).toBe(200);
      const dry = await dryRun(owner);
      expect(dry.status).toBe(200);
      const glob = `${mode}/levels/**/*.UMAP`;
      expect(dry.body).toMatchObject({
        dryRun: true,
        versionCount: 3,
        versionsTruncated: false,
        fileCount: 2,
        logicalBytes: 300 + 30 + 12,
        freedObjects: 2,
        freedBytes: 30 + 12,
        keptObjects: 1,
        lockedFiles: 1,
        appliedAt: null,
      });
      const listed = dry.body.versions.map((v: { fileId: string; version: number; rule: string }) => [v.fileId, v.version, v.rule]);
      expect(listed).toEqual([
        [a1.fileId, a3.version, glob],
        [a1.fileId, a1.version, glob],
        [b1.fileId, b2.version, glob],
      ]);

      const before = await owner.usage();
      let ran: { runId: string; appliedAt: string } | undefined;
      if (mode === 'run') {
        const done = await run(owner, dry.body.confirmToken);
        expect(done.status, JSON.stringify(done.body)).toBe(200);
        expect(done.body).toMatchObject({ ...dry.body, dryRun: false, confirmToken: null, expiresAt: null, appliedAt: expect.any(String) });
        expect((await owner.api.get(owner.url('/retention'))).body.lastRunAt).toBe(done.body.appliedAt);
        ran = done.body;
        // The plan is gone: the same token again is a plan that changed.
        const again = await run(owner, dry.body.confirmToken);
        expect(again.status).toBe(409);
        expect(again.body).toMatchObject({ code: 'conflict', reason: 'plan_changed' });
      } else {
        const startedAt = new Date().toISOString();
        expect(await stack.upload.retention.runDue(0)).toBeGreaterThanOrEqual(1);
        const { lastRunAt } = (await owner.api.get(owner.url('/retention'))).body;
        expect(lastRunAt >= startedAt, `${lastRunAt} < ${startedAt}`).toBe(true);
      }

      // Nothing the rules may remove is left; the locked file waits for a later run.
      expect((await dryRun(owner)).body).toMatchObject({ versionCount: 0, lockedFiles: 1, confirmToken: null });
      // History shows the removed committed version, with its rule; downloads of it answer version_purged.
      const history = await owner.api.get(owner.url(`/files/${a1.fileId}/versions`));
      const by = mode === 'run' ? { userId: owner.project.userId, userName: expect.any(String) } : null;
      expect(history.body.data.map((v: { version: number; purged: unknown }) => [v.version, v.purged])).toEqual([
        [a4.version, null],
        [a2.version, null],
        [a1.version, { at: expect.any(String), by, reason: 'retention', rule: glob }],
      ]);
      const downloads = await owner.api.post(owner.url('/files/download-urls'), {
        files: [{ fileId: a1.fileId, version: a1.version }, { path: at('Docs/shared.bin') }, { fileId: a1.fileId, version: a2.version }],
      });
      const [purged, sharedCopy, branchTip] = downloads.body.results;
      expect(purged).toMatchObject({ version: a1.version, code: 'version_purged' });
      expect(Buffer.from(await (await fetch(sharedCopy.downloadUrl)).arrayBuffer()).equals(shared)).toBe(true);
      expect(branchTip.downloadUrl).toEqual(expect.any(String));

      // Each run's counts reach the feed (and so webhooks) as its audit event, with who ran it (nobody for the periodic job).
      await expect
        .poll(async () => (await owner.feed('retention.applied')).filter((event) => event.data.trigger === mode), { timeout: 10_000 })
        .toEqual([
          {
            id: expect.any(String),
            type: 'retention.applied',
            projectId: owner.project.projectId,
            occurredAt: ran?.appliedAt ?? expect.any(String),
            data: {
              runId: ran?.runId ?? expect.any(String),
              trigger: mode,
              by,
              versionCount: 3,
              fileCount: 2,
              logicalBytes: 300 + 30 + 12,
              freedObjects: 2,
              freedBytes: 30 + 12,
              lockedFiles: 1,
              appliedAt: ran?.appliedAt ?? expect.any(String),
            },
          },
        ]);

      const after = await owner.usageAndRecount();
      expect(after.usage).toEqual(after.recount);
      expect(after.usage).toMatchObject({ versions: before.versions - 3, logicalBytes: before.logicalBytes - (300 + 30 + 12) });
    },
  );

  it("leave an open upload alone, even one that deduplicates against a removed version's content", async () => {
    const content = randomBytes(64);
    await owner.push('reserved/x.bin', content);
    await owner.push('reserved/x.bin', randomBytes(65));
    const initiated = await owner.api.post(owner.url('/files/upload/initiate'), { path: 'reserved/x.bin', ...describeContent(content) });
    expect(initiated.body).toMatchObject({ dedup: true, version: 3 });
    expect((await setRules(owner, [{ glob: 'reserved/**', keepLast: 1 }])).status).toBe(200);
    const dry = await dryRun(owner);
    expect(dry.body).toMatchObject({ versionCount: 1, versions: [expect.objectContaining({ version: 1 })] });
    expect((await run(owner, dry.body.confirmToken)).status).toBe(200);
    // The collector leaves the object a pending reservation names; the upload then confirms against it.
    await stack.upload.objects.runOnce();
    const { sha256, size } = describeContent(content);
    const confirmed = await owner.api.post(owner.url('/files/upload/confirm'), { fileId: initiated.body.fileId, version: 3, sha256, size, dedup: true });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    await owner.commit([{ fileId: initiated.body.fileId, version: 3 }]);
    const download = await owner.api.post(owner.url('/files/download-urls'), { files: [{ fileId: initiated.body.fileId, version: 3 }] });
    expect(Buffer.from(await (await fetch(download.body.results[0].downloadUrl)).arrayBuffer()).equals(content)).toBe(true);
  });

  it('refuse a run whose plan changed since the dry run', async () => {
    await owner.push('changed/x.bin', randomBytes(3));
    await owner.push('changed/x.bin', randomBytes(4));
    expect((await setRules(owner, [{ glob: 'changed/**', keepLast: 1 }])).status).toBe(200);
    const dry = await dryRun(owner);
    expect(dry.body.versionCount).toBe(1);
    await owner.push('changed/x.bin', randomBytes(5));
    const refused = await run(owner, dry.body.confirmToken);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', reason: 'plan_changed', removedVersions: 0 });
    expect((await run(owner, `${dry.body.confirmToken.slice(0, -2)}xx`)).status).toBe(403);
  });
});
