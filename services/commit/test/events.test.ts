import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commit } from '@lode/contracts';
import type { EventConsumer } from '@lode/bus';
import { pushFile, type SeededProject } from '@lode/testkit';
import { seedConfirmedVersions, startTestStack, type TestStack } from '@lode/system/testing';

/** Collects commit.created events of one project as a consumer would, in delivery order. */
async function collect(stack: TestStack, projectId: string) {
  const received: commit.CommitCreated[] = [];
  const consumer: EventConsumer = await stack.events.consume(`test-${randomUUID().slice(0, 8)}`, commit.commitCreated, async (event) => {
    if (event.projectId === projectId) received.push(event);
  });
  const until = async (done: () => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out with ${received.length} events`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { received, until, stop: () => consumer.stop() };
}

describe.each(['local', 'nats'] as const)('commit.created events (%s bus)', (bus) => {
  let stack: TestStack;
  let p: SeededProject;
  const commits = () => `/api/v1/projects/${p.projectId}/commits`;

  beforeAll(async () => {
    stack = await startTestStack({ bus });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());

  it('publishes every commit once, in sequence order, with its entries', async () => {
    const events = await collect(stack, p.projectId);
    const a = await pushFile(p.api, p.projectId, 'Art/a.png', randomBytes(10));
    const b = await pushFile(p.api, p.projectId, 'Art/b.png', randomBytes(20));
    const first = await p.api.post(commits(), { message: 'add', fileVersions: [a, b].map((f) => ({ fileId: f.fileId, version: 1, action: 'add' })) });
    const second = await p.api.post(commits(), { message: 'drop b', fileVersions: [{ fileId: b.fileId, action: 'delete' }] });
    const branched = await p.api.post(commits(), {
      message: 'branch',
      branch: 'feature/x',
      fileVersions: [{ fileId: (await pushFile(p.api, p.projectId, 'Art/a.png', randomBytes(5))).fileId, version: 2, action: 'modify' }],
    });
    await events.until(() => events.received.length >= 3);
    await events.stop();
    expect(events.received.map((e) => e.sequenceNum)).toEqual([1, 2, 3]);
    expect(events.received[0]).toEqual({
      commitId: first.body.id,
      projectId: p.projectId,
      branch: 'main',
      sequenceNum: 1,
      kind: 'commit',
      branchChanges: 0,
      message: 'add',
      author: { userId: p.userId, userName: expect.any(String) },
      createdAt: expect.stringMatching(/\.\d{3}Z$/),
      fileCount: 2,
      part: 1,
      parts: 1,
      entries: [
        { fileId: a.fileId, path: 'Art/a.png', action: 'add', version: 1, sha256: a.sha256, size: 10 },
        { fileId: b.fileId, path: 'Art/b.png', action: 'add', version: 1, sha256: b.sha256, size: 20 },
      ],
    });
    expect(events.received[1]).toMatchObject({
      commitId: second.body.id,
      entries: [{ fileId: b.fileId, path: 'Art/b.png', action: 'delete', version: null, sha256: null, size: null }],
    });
    expect(events.received[2]).toMatchObject({ commitId: branched.body.id, branch: 'feature/x', entries: [{ action: 'modify', version: 2 }] });
  });

  it('publishes a 25,000-file commit as ordered parts that carry every entry', async () => {
    const files = await seedConfirmedVersions(stack.databaseUrl, p, commit.MAX_COMMIT_ENTRIES);
    const events = await collect(stack, p.projectId);
    const res = await p.api.post(commits(), { message: 'big', fileVersions: files.map((f) => ({ fileId: f.fileId, version: 1, action: 'add' })) });
    expect(res).toMatchObject({ status: 201, body: { fileCount: commit.MAX_COMMIT_ENTRIES } });
    const big = () => events.received.filter((e) => e.commitId === res.body.id);
    await events.until(() => big().length > 0 && big().length === big()[0].parts);
    await events.stop();
    expect(big().length).toBeGreaterThan(1);
    expect(big().map((e) => e.part)).toEqual(Array.from({ length: big().length }, (_, i) => i + 1));
    const entries = big().flatMap((e) => e.entries);
    expect(entries.map((e) => e.fileId)).toEqual(files.map((f) => f.fileId));
    expect(entries[24_999]).toEqual({
      fileId: files[24_999].fileId,
      path: files[24_999].path,
      action: 'add',
      version: 1,
      sha256: files[24_999].sha256,
      size: files[24_999].size,
    });
    // The history of one of them answers through the same path.
    const history = await p.api.get(`/api/v1/projects/${p.projectId}/files/${files[123].fileId}/versions`);
    expect(history.body.data).toMatchObject([{ version: 1, commitId: res.body.id }]);
  });

  it('keeps every part of a commit of long multi-byte paths and the longest message below 1 MiB', async () => {
    const files = await seedConfirmedVersions(stack.databaseUrl, p, 2000, `${'é'.repeat(1000)}`);
    const events = await collect(stack, p.projectId);
    const message = '€'.repeat(10_000);
    const res = await p.api.post(commits(), { message, fileVersions: files.map((f) => ({ fileId: f.fileId, version: 1, action: 'add' })) });
    expect(res.status).toBe(201);
    const big = () => events.received.filter((e) => e.commitId === res.body.id);
    await events.until(() => big().length > 0 && big().length === big()[0].parts);
    await events.stop();
    expect(big().length).toBeGreaterThan(1);
    for (const part of big()) {
      expect(Buffer.byteLength(JSON.stringify(part))).toBeLessThan(1024 * 1024 - 4096);
      expect(part.message).toBe(message);
    }
    expect(big().flatMap((e) => e.entries.map((entry) => entry.path))).toEqual(files.map((f) => f.path));
  });
});
