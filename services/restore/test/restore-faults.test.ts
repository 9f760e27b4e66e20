import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { commit, upload } from '@lode/contracts';
import { pushFile, type ApiClient, type PushedFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { startPartialStack, type PartialStack } from './partial-stack.ts';

describe.each(['local', 'nats'] as const)('restore when a step fails halfway (%s bus)', (bus) => {
  let stack: TestStack;
  let partial: PartialStack;
  let p: SeededProject;
  /** The project's key through the gateway whose restore service meets the injected faults. */
  let faultyApi: ApiClient;
  let db: pg.Client;
  const restoreUrl = () => `/api/v1/projects/${p.projectId}/restore`;
  const commitsUrl = () => `/api/v1/projects/${p.projectId}/commits`;
  const commitFiles = async (files: PushedFile[]) => {
    const res = await p.api.post(commitsUrl(), {
      message: 'commit',
      fileVersions: files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' })),
    });
    expect(res.status).toBe(201);
    return res.body as commit.Commit;
  };
  /** Two files whose main history is v1 then v2, and the request restoring both to v1 (which makes v3). */
  const twoFilesAtVersion2 = async (prefix: string) => {
    const v1 = await Promise.all(['a', 'b'].map((name) => pushFile(p.api, p.projectId, `${prefix}/${name}.bin`, randomBytes(40))));
    await commitFiles(v1);
    await commitFiles(await Promise.all(v1.map((f) => pushFile(p.api, p.projectId, f.path, randomBytes(40)))));
    return { fileIds: v1.map((f) => f.fileId), body: { files: v1.map((f) => ({ fileId: f.fileId, toVersion: 1 })) } };
  };
  const probeSequence = async () => (await commitFiles([await pushFile(p.api, p.projectId, `probe/${randomUUID()}.bin`, randomBytes(8))])).sequenceNum;
  const mainHistory = async (fileId: string) => (await p.api.get(`/api/v1/projects/${p.projectId}/files/${fileId}/versions`)).body.data as commit.FileVersion[];
  const restoreVersions = async (fileIds: string[]) =>
    (
      await db.query<{ version: number }>(
        `SELECT version FROM files.versions WHERE file_id = ANY($1::uuid[]) AND origin = 'restore' ORDER BY file_id, version`,
        [fileIds],
      )
    ).rows.map((r) => r.version);
  const requestState = async (key: string) => (await db.query('SELECT state FROM restore.restore_requests WHERE idem_key = $1', [key])).rows[0]?.state;
  const idempotencyKey = () => ({ 'X-Idempotency-Key': `fault-${randomUUID()}` });

  beforeAll(async () => {
    stack = await startTestStack({ bus });
    partial = await startPartialStack(stack, bus);
    p = await stack.seed.project();
    faultyApi = partial.api(p);
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });
  afterEach(() => partial.heal());
  afterAll(async () => {
    await db?.end();
    await partial?.stop();
    await stack?.stop();
  });

  it('makes nothing while the upload or commit service is down before the versions are made', async () => {
    const { fileIds, body } = await twoFilesAtVersion2('Down-early');
    const headers = idempotencyKey();
    partial.inject(upload.resolveVersions, 'down');
    expect(await faultyApi.post(restoreUrl(), body, headers)).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
    partial.heal();
    partial.inject(commit.treeStates, 'down');
    expect(await faultyApi.post(restoreUrl(), body, headers)).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
    expect(await restoreVersions(fileIds)).toEqual([]);
    partial.heal();
    expect(await faultyApi.post(restoreUrl(), body, headers)).toMatchObject({
      status: 200,
      body: { restored: fileIds.map((fileId) => ({ fileId, newVersion: 3 })) },
    });
  });

  it('keeps the versions it made invisible while the commit service is down, and the retry with the same key commits them once', async () => {
    const { fileIds, body } = await twoFilesAtVersion2('Down-between');
    const before = await probeSequence();
    const headers = idempotencyKey();
    partial.inject(commit.create, 'down');
    expect(await faultyApi.post(restoreUrl(), body, headers)).toMatchObject({
      status: 503,
      body: { code: 'service_unavailable', message: expect.stringContaining('commit') },
    });
    expect(await restoreVersions(fileIds)).toEqual([3, 3]);
    expect(await requestState(headers['X-Idempotency-Key'])).toBe('prepared');
    for (const fileId of fileIds) expect((await mainHistory(fileId)).map((v) => v.version)).toEqual([2, 1]);
    expect(await probeSequence()).toBe(before + 1);

    // Retried while still down: the recorded plan is reused, nothing more is made.
    expect((await faultyApi.post(restoreUrl(), body, headers)).status).toBe(503);
    expect(await restoreVersions(fileIds)).toEqual([3, 3]);

    partial.heal();
    const done = await faultyApi.post(restoreUrl(), body, headers);
    expect(done).toMatchObject({ status: 200, body: { sequenceNum: before + 2, restored: fileIds.map((fileId) => ({ fileId, newVersion: 3 })), skipped: [] } });
    expect(await faultyApi.post(restoreUrl(), body, headers)).toMatchObject({ status: 200, body: done.body });
    expect(await restoreVersions(fileIds)).toEqual([3, 3]);
    for (const fileId of fileIds) expect((await mainHistory(fileId)).map((v) => v.version)).toEqual([3, 2, 1]);
    expect(await probeSequence()).toBe(before + 3);
  });

  it('reuses the versions made when the upload service’s reply was lost', async () => {
    const { fileIds, body } = await twoFilesAtVersion2('Lost-prepare');
    const headers = idempotencyKey();
    partial.inject(upload.prepareRestore, 'reply_lost');
    expect(await faultyApi.post(restoreUrl(), body, headers)).toMatchObject({ status: 504, body: { code: 'timeout' } });
    // Made, but the restore never learnt of them: no plan was recorded.
    expect(await restoreVersions(fileIds)).toEqual([3, 3]);
    expect(await requestState(headers['X-Idempotency-Key'])).toBe('pending');
    partial.heal();
    const res = await faultyApi.post(restoreUrl(), body, headers);
    expect(res).toMatchObject({ status: 200, body: { restored: fileIds.map((fileId) => ({ fileId, newVersion: 3 })) } });
    expect(await restoreVersions(fileIds)).toEqual([3, 3]);
  });

  it('answers with the commit already made, and commits nothing more, when the commit service’s reply was lost', async () => {
    const { fileIds, body } = await twoFilesAtVersion2('Lost-commit');
    const headers = idempotencyKey();
    partial.inject(commit.create, 'reply_lost');
    expect(await faultyApi.post(restoreUrl(), body, headers)).toMatchObject({ status: 504, body: { code: 'timeout' } });
    // The commit exists; only the restore service does not know it.
    const [committed] = await mainHistory(fileIds[0]);
    expect(committed.version).toBe(3);
    partial.heal();
    const retry = await faultyApi.post(restoreUrl(), body, headers);
    expect(retry).toMatchObject({ status: 200, body: { commitId: committed.commitId } });
    expect(await probeSequence()).toBe(retry.body.sequenceNum + 1);
    for (const fileId of fileIds) expect((await mainHistory(fileId)).map((v) => v.version)).toEqual([3, 2, 1]);
  });
});
