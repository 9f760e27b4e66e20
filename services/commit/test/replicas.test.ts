import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { commit } from '@lode/contracts';
import { connectNats, JetStreamEvents } from '@lode/bus';
import { createLogger } from '@lode/telemetry';
import { pushFile, spawnService, TEST_NATS_URL, type SeededProject } from '@lode/testkit';
import { startProcessStack, type ProcessStack } from '@lode/system/testing';

describe('commit replicas as separate processes on NATS', () => {
  let stack: ProcessStack;
  let p: SeededProject;
  const commits = () => `/api/v1/projects/${p.projectId}/commits`;
  const addAll = (files: { fileId: string; version: number }[]) => files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' }));

  beforeAll(async () => {
    stack = await startProcessStack({ storage: 'local', replicas: { commit: 3 } });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());

  it('numbers 30 concurrent commits from three replicas 1 to 30, with no gaps and no duplicates', async () => {
    const files = await Promise.all(Array.from({ length: 30 }, (_, i) => pushFile(p.api, p.projectId, `concurrent/${i}.bin`, randomBytes(16))));
    const results = await Promise.all(files.map((f, i) => p.api.post(commits(), { message: `c${i}`, fileVersions: addAll([f]) })));
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(201));
    expect(results.map((r) => r.body.sequenceNum as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('publishes every event after a replica crashed between its commits and publishing them', async () => {
    // Only a replica that does not relay is left, then it is killed: the commits exist, their events do not.
    await Promise.all(stack.commitReplicas.map((r) => r.stop()));
    const silent = spawnService('commit', { ...stack.env, LODE_OUTBOX_RELAY: 'false' });
    const files = await Promise.all(Array.from({ length: 5 }, (_, i) => pushFile(p.api, p.projectId, `crash/${i}.bin`, randomBytes(16))));
    const made: { id: string; sequenceNum: number }[] = [];
    for (const f of files) {
      const res = await retryUntilServed(() => p.api.post(commits(), { message: 'before crash', fileVersions: addAll([f]) }));
      made.push(res.body);
    }
    silent.child.kill('SIGKILL');
    await silent.stop();
    expect(await unpublished(stack.databaseUrl)).toBe(5);

    const nc = await connectNats(TEST_NATS_URL, 'test-consumer');
    const events = await JetStreamEvents.connect(nc, createLogger('test', 'silent'), { namespace: stack.env.LODE_BUS_NAMESPACE });
    const received: commit.CommitCreated[] = [];
    const consumer = await events.consume('crash-test', commit.commitCreated, async (event) => {
      received.push(event);
    });
    const recovered = spawnService('commit', stack.env);
    try {
      const deadline = Date.now() + 20_000;
      while (!made.every((m) => received.some((e) => e.commitId === m.id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const crashed = received.filter((e) => made.some((m) => m.id === e.commitId));
      expect(crashed.map((e) => e.sequenceNum)).toEqual(made.map((m) => m.sequenceNum));
      // In order per project across everything the stream holds, and each commit once.
      const sequence = received.map((e) => e.sequenceNum);
      expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
      expect(new Set(received.map((e) => e.commitId)).size).toBe(received.length);
      expect(await unpublished(stack.databaseUrl)).toBe(0);
    } finally {
      await consumer.stop();
      await events.close();
      await nc.close();
      await recovered.stop();
    }
  });
});

async function unpublished(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM commits.outbox WHERE published_at IS NULL');
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** A freshly spawned replica answers once it has subscribed; until then the gateway says 503. */
async function retryUntilServed<T extends { status: number }>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await call();
    if (res.status !== 503 || Date.now() > deadline) {
      expect(res.status).toBe(201);
      return res;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
