import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { commit } from '@lode/contracts';
import { connectNats, JetStreamEvents } from '@lode/bus';
import { createLogger } from '@lode/telemetry';
import { freePort, pushFile, TEST_NATS_URL, untilReady, type SeededProject } from '@lode/testkit';
import { spawnServiceProcess, startProcessStack, type ProcessStack } from '@lode/system/testing';

/** Each wait below is for an event, counted from what causes it; this only ends a run that hangs. */
const HANG_GUARD_MS = 60_000;
/** The crash test's own limit only bounds its guarded waits together (two starts, their events). */
const CRASH_TEST_TIMEOUT_MS = 300_000;

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

  it('publishes every event after a replica crashed between its commits and publishing them', { timeout: CRASH_TEST_TIMEOUT_MS }, async () => {
    // The earlier test's events are all published first: a replica stopped while its relay still
    // holds one would leave it in the outbox, beside the crashed replica's.
    await eventually('the replicas published every earlier event', async () => (await unpublished(stack.databaseUrl)) === 0);
    // Only a replica that does not relay is left, then it is killed: the commits exist, their events do not.
    await Promise.all(stack.commitReplicas.map((r) => r.stop()));
    const silent = spawnServiceProcess('commit', { ...stack.env, LODE_OUTBOX_RELAY: 'false', LODE_OPS_PORT: String(await freePort()) });
    const made: { id: string; sequenceNum: number }[] = [];
    try {
      // Commits wait for the replica to serve: how long a process takes to start is no part of what is tested.
      await untilReady(silent);
      const files = await Promise.all(Array.from({ length: 5 }, (_, i) => pushFile(p.api, p.projectId, `crash/${i}.bin`, randomBytes(16))));
      for (const f of files) {
        const res = await retryUntilServed(() => p.api.post(commits(), { message: 'before crash', fileVersions: addAll([f]) }));
        made.push(res.body);
      }
    } finally {
      await silent.kill();
    }
    expect(await unpublished(stack.databaseUrl)).toBe(5);

    const nc = await connectNats(TEST_NATS_URL, 'test-consumer');
    const events = await JetStreamEvents.connect(nc, createLogger('test', 'silent'), { namespace: stack.env.LODE_BUS_NAMESPACE });
    const received: commit.CommitCreated[] = [];
    const consumer = await events.consume('crash-test', commit.commitCreated, async (event) => {
      received.push(event);
    });
    const recovered = spawnServiceProcess('commit', { ...stack.env, LODE_OPS_PORT: String(await freePort()) });
    try {
      // Waited for from the moment the recovered replica runs, and for the events themselves.
      await untilReady(recovered);
      await eventually('the recovered replica published the crashed one’s events', () => made.every((m) => received.some((e) => e.commitId === m.id)));
      const crashed = received.filter((e) => made.some((m) => m.id === e.commitId));
      expect(crashed.map((e) => e.sequenceNum)).toEqual(made.map((m) => m.sequenceNum));
      // In order per project across everything the stream holds, and each commit once.
      const sequence = received.map((e) => e.sequenceNum);
      expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
      expect(new Set(received.map((e) => e.commitId)).size).toBe(received.length);
      // Marked published once the relay's transaction commits, just after the stream took them.
      await eventually('the outbox marked every event published', async () => (await unpublished(stack.databaseUrl)) === 0);
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

/**
 * A replica that has just come up may not be reachable yet everywhere (the gateway answers 503 until
 * then): the call is repeated, each time it is 503, until the guard, which only catches a hang.
 */
async function retryUntilServed<T extends { status: number; body: unknown }>(call: () => Promise<T>): Promise<T> {
  const guard = Date.now() + HANG_GUARD_MS;
  for (;;) {
    const res = await call();
    if (res.status !== 503 || Date.now() > guard) {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls until `done` holds; the guard is far beyond what the step needs and only catches a hang. */
async function eventually(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  const guard = Date.now() + HANG_GUARD_MS;
  while (!(await done())) {
    if (Date.now() > guard) throw new Error(`never came: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
