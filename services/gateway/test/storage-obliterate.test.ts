import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec } from '@lode/db';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { StorageClient } from './storage-helpers.ts';

describe.each(['local', 's3'] as const)('obliterate (%s storage)', (storageDriver) => {
  let stack: TestStack;
  let owner: StorageClient;
  let member: StorageClient;
  const obliterate = (client: StorageClient, body: object) => client.api.post(client.url('/obliterate'), body);
  /** A token as the server signs them, for the cases a client cannot make: an expired one. */
  const sign = (position: (string | number)[]) =>
    new CursorCodec(createHash('sha256').update(`lode.obliterate\u0000${stack.environment.LODE_CURSOR_SECRET}`).digest('base64url')).encode(position);

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: storageDriver });
    const project = await stack.seed.project();
    owner = new StorageClient(stack, project);
    member = new StorageClient(stack, await stack.seed.member(project.orgId, project.projectId, 'member'));
  });
  afterAll(async () => stack?.stop());

  it('removes a path after a dry run: history shows the versions removed, downloads answer version_purged, shared content survives', async () => {
    const shared = randomBytes(400);
    const v1 = await owner.push('Secrets/keys.bin', randomBytes(100));
    const v2 = await owner.push('Secrets/keys.bin', shared);
    const v3 = await owner.push('Secrets/keys.bin', randomBytes(300));
    const other = await owner.push('Docs/readme.bin', shared); // dedups against v2's object
    expect(other.dedup).toBe(true);
    await owner.commit([v2, other]);
    await owner.commit([v3]);
    const before = await owner.usage();

    // Owners and admins only; a run needs the dry run's token.
    expect((await obliterate(member, { path: 'Secrets/keys.bin', dryRun: true })).status).toBe(403);
    const missing = await obliterate(owner, { path: 'Secrets/keys.bin' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'validation_failed', issues: [{ path: 'confirmToken' }] });
    expect((await obliterate(owner, { path: 'Secrets/none.bin', dryRun: true })).status).toBe(404);

    const dry = await obliterate(owner, { path: 'secrets/KEYS.bin', dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      fileId: v1.fileId,
      path: 'Secrets/keys.bin',
      versionCount: 3,
      versionsTruncated: false,
      logicalBytes: 800,
      freedObjects: 2,
      freedBytes: 400,
      keptObjects: 1,
      obliteratedAt: null,
    });
    expect(dry.body.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    const token: string = dry.body.confirmToken;
    // A token is good for its own target only, and cannot be edited.
    expect((await obliterate(owner, { fileId: other.fileId, confirmToken: token })).status).toBe(403);
    expect((await obliterate(owner, { path: 'Secrets/keys.bin', confirmToken: `${token.slice(0, -2)}xx` })).status).toBe(403);
    expect((await obliterate(member, { path: 'Secrets/keys.bin', confirmToken: token })).status).toBe(403);

    const run = await obliterate(owner, { path: 'Secrets/keys.bin', confirmToken: token });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ ...dry.body, dryRun: false, confirmToken: null, expiresAt: null, obliteratedAt: expect.any(String) });
    // The answer lost, the same request again answers what was done.
    const again = await obliterate(owner, { path: 'Secrets/keys.bin', confirmToken: token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(run.body);

    // History keeps the committed versions, shown as removed, with nothing to download.
    const history = await owner.api.get(owner.url(`/files/${v1.fileId}/versions`));
    expect(history.body.data.map((v: { version: number; downloadUrl: string | null; purged: unknown }) => [v.version, v.downloadUrl, v.purged])).toEqual([
      [3, null, { at: run.body.obliteratedAt, by: { userId: owner.project.userId, userName: expect.any(String) }, reason: 'obliterate' }],
      [2, null, { at: run.body.obliteratedAt, by: { userId: owner.project.userId, userName: expect.any(String) }, reason: 'obliterate' }],
    ]);
    // Each entry of a download batch answers alone: the purged tip 410's code, the shared content its URL.
    const downloads = await owner.api.post(owner.url('/files/download-urls'), {
      files: [{ fileId: v1.fileId }, { path: 'Docs/readme.bin' }, { fileId: v1.fileId, version: 2 }],
    });
    expect(downloads.status).toBe(200);
    const [tip, readme, second] = downloads.body.results;
    expect(tip).toMatchObject({ fileId: v1.fileId, path: 'Secrets/keys.bin', version: 3, code: 'version_purged', purgedAt: run.body.obliteratedAt });
    expect(second).toMatchObject({ version: 2, code: 'version_purged' });
    const bytes = Buffer.from(await (await fetch(readme.downloadUrl)).arrayBuffer());
    expect(bytes.equals(shared)).toBe(true);

    // Usage: the versions are gone at once; their objects until the collector deletes them.
    const after = await owner.usageAndRecount();
    expect(after.usage).toEqual(after.recount);
    expect(after.usage).toMatchObject({ logicalBytes: before.logicalBytes - 800, versions: before.versions - 3, storedBytes: before.storedBytes });

    // Nothing commits or restores a purged version; numbers are never reused.
    const commit = await owner.api.post(owner.url('/commits'), { message: 'back', fileVersions: [{ fileId: v1.fileId, version: 1, action: 'modify' }] });
    expect(commit.status).toBe(409);
    expect(commit.body.code).toBe('version_not_confirmed');
    const restore = await owner.api.post(owner.url('/restore'), { files: [{ fileId: v1.fileId, toVersion: 2 }] });
    expect(restore.status).toBe(422);
    expect(restore.body.skipped).toMatchObject([{ fileId: v1.fileId, code: 'version_not_found' }]);
    const v4 = await owner.push('Secrets/keys.bin', randomBytes(50));
    expect(v4.version).toBe(4);
    await owner.commit([v4]);

    // The audit event reaches the feed (and so webhooks).
    await expect
      .poll(() => owner.feed('file.obliterated'), { timeout: 10_000 })
      .toMatchObject([
        {
          type: 'file.obliterated',
          data: {
            obliterationId: run.body.obliterationId,
            fileId: v1.fileId,
            path: 'Secrets/keys.bin',
            versions: [3, 2, 1],
            versionCount: 3,
            freedBytes: 400,
          },
        },
      ]);
  });

  it('removes one version; a plan that changed or a token that expired is refused with 409', async () => {
    const a1 = await owner.push('Art/hero.psd', randomBytes(10));
    const a2 = await owner.push('Art/hero.psd', randomBytes(20));
    const dry = await obliterate(owner, { fileId: a1.fileId, version: 1, dryRun: true });
    expect(dry.body).toMatchObject({ versionCount: 1, logicalBytes: 10, freedObjects: 1 });
    expect((await obliterate(owner, { fileId: a1.fileId, version: 2, confirmToken: dry.body.confirmToken })).status).toBe(403);
    expect((await obliterate(owner, { fileId: a1.fileId, version: 99, dryRun: true })).status).toBe(404);

    // Every version of the file: a version confirmed after the dry run changes the plan.
    const whole = await obliterate(owner, { fileId: a1.fileId, dryRun: true });
    expect(whole.body.versionCount).toBe(2);
    await owner.push('Art/hero.psd', randomBytes(30));
    const changed = await obliterate(owner, { fileId: a1.fileId, confirmToken: whole.body.confirmToken });
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ code: 'conflict', reason: 'plan_changed' });

    const expired = sign(['obliterate', owner.project.projectId, a1.fileId, 1, digestOf(dry), Date.now() - 1]);
    const late = await obliterate(owner, { fileId: a1.fileId, version: 1, confirmToken: expired });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 'conflict', reason: 'expired' });

    const run = await obliterate(owner, { fileId: a1.fileId, version: 1, confirmToken: dry.body.confirmToken });
    expect(run.status).toBe(200);
    const versions = await stack.upload.usage.recount(owner.project.projectId);
    expect(versions).toEqual((await owner.usageAndRecount()).usage);
    // Nothing left to remove at that version: the dry run has no token to give.
    expect((await obliterate(owner, { fileId: a2.fileId, version: 1, dryRun: true })).body).toMatchObject({ versionCount: 0, confirmToken: null });
  });

  it('refuses to commit a draft that staged a version obliterated since, and keeps the draft', async () => {
    const kept = await owner.push('Maps/keep.bin', randomBytes(50));
    const secret = await owner.push('Maps/secret.bin', randomBytes(60));
    const drafts = owner.url('/drafts');
    const draft = await owner.api.post(drafts, { message: 'import' });
    expect(draft.status).toBe(201);
    const fileVersions = [kept, secret].map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' }));
    expect((await owner.api.post(`${drafts}/${draft.body.id}/files`, { fileVersions })).status).toBe(200);

    const dry = await obliterate(owner, { fileId: secret.fileId, dryRun: true });
    expect((await obliterate(owner, { fileId: secret.fileId, confirmToken: dry.body.confirmToken })).status).toBe(200);

    const refused = await owner.api.post(`${drafts}/${draft.body.id}/commit`, {});
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'version_not_confirmed', entries: [{ fileId: secret.fileId, version: secret.version }] });
    expect((await owner.api.get(`${drafts}/${draft.body.id}`)).body).toMatchObject({ id: draft.body.id, fileCount: 2 });
  });
});

/** The plan digest a dry run's token signs (its position's fifth element). */
function digestOf(dry: { body: { confirmToken: string } }): string {
  const [body] = dry.body.confirmToken.split('.');
  return (JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as string[])[4];
}
