import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { commit, sync, type EventContract } from '@lode/contracts';
import type { ConsumerOptions, EventHandler, EventStream } from '@lode/bus';
import { Database } from '@lode/db';
import { uniqueName, type SeededProject } from '@lode/testkit';
import { seedConfirmedVersions, startTestStack, type TestStack } from '@lode/system/testing';
import { SYNC_SCHEMA } from '../src/index.ts';
import { randomSha, workspace, type Local } from './helpers.ts';
import { startReadModelNode } from './read-model.ts';

/**
 * The stack's events as a flaky transport delivers them to a consumer: every event handled twice
 * (its ack was lost), and a crash once `afterParts` parts of the project's multi-part commit went through.
 */
function flakyEvents(events: EventStream, projectId: string, afterParts: number) {
  let parts = 0;
  let crashed = (): void => undefined;
  const interrupted = new Promise<void>((resolve) => (crashed = resolve));
  const stream: EventStream = {
    publish: (event) => events.publish(event),
    readyToPublish: () => events.readyToPublish(),
    close: () => events.close(),
    consume<E extends EventContract>(name: string, contract: E, handler: EventHandler<E>, options?: ConsumerOptions) {
      return events.consume(
        name,
        contract,
        async (event, meta) => {
          const { projectId: project, parts: of } = event as commit.CommitCreated;
          const multiPart = project === projectId && of > 1;
          if (multiPart && parts === afterParts) {
            crashed();
            throw new Error('simulated crash before the next part');
          }
          await handler(event, meta);
          await handler(event, meta);
          if (multiPart) parts += 1;
        },
        options,
      );
    },
  };
  return { events: stream, interrupted };
}

describe.each(['local', 'nats'] as const)('the sync read model (%s bus)', (bus) => {
  let stack: TestStack;
  let liveSync: Database;
  const syncPath = (p: SeededProject) => `/api/v1/projects/${p.projectId}/sync`;
  /**
   * A sync as a client makes it: a 503 sync_catching_up is asked again after its Retry-After. How
   * soon a read model applies a commit depends on the host's load, so only the answer is asserted.
   */
  const syncWhenCurrent = async (api: { post: SeededProject['api']['post'] }, p: SeededProject, body: unknown) => {
    let answer = await api.post(syncPath(p), body);
    for (let tries = 1; answer.status === 503 && answer.body.code === 'sync_catching_up' && tries < 120; tries++) {
      await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after')) * 1000));
      answer = await api.post(syncPath(p), body);
    }
    return answer;
  };
  const nodeName = (what: string) => ({ schema: uniqueName(`sync_${what}`), consumer: uniqueName(what) });
  const rowCounts = async (db: Database, projectId: string) => {
    const { rows } = await db.query<{ tree: number; history: number }>(
      'SELECT (SELECT count(*)::int FROM tree WHERE project_id = $1) AS tree, (SELECT count(*)::int FROM history WHERE project_id = $1) AS history',
      [projectId],
    );
    return rows[0];
  };

  beforeAll(async () => {
    stack = await startTestStack({ bus });
    liveSync = new Database({ connectionString: stack.databaseUrl, schema: SYNC_SCHEMA, max: 2 });
  });
  afterAll(async () => {
    await liveSync?.close();
    await stack?.stop();
  });

  /** A history that touches every rule, and local files that between them get every status. */
  async function richHistory(p: SeededProject): Promise<Local[]> {
    const ws = workspace(p);
    const a1 = await ws.push('a.bin');
    const gone = await ws.push('gone.bin');
    const re1 = await ws.push('re.bin');
    const old = randomBytes(30);
    const back1 = await ws.push('back.bin', old);
    await ws.commit({ set: [a1, gone, re1, back1, await ws.push('Art/Case.PNG')] });
    const a2 = await ws.push('a.bin');
    const back2 = await ws.push('back.bin');
    await ws.commit({ set: [a2, back2], remove: [gone.fileId, re1.fileId] });
    await ws.commit({ set: [await ws.push('re.bin'), await ws.push('back.bin', old)] });
    await ws.commit({ set: [await ws.push('a.bin'), await ws.push('branch-only.bin')] }, 'feature/x');
    await ws.commit({ set: [await ws.push('later.bin')] });
    return [
      { path: 'a.bin', sha256: a2.sha256 },
      { path: 'A.BIN', sha256: a1.sha256 },
      { path: 'a.bin', sha256: randomSha() },
      { path: 'a.bin', sha256: randomSha(), baseVersion: 1 },
      { path: 'gone.bin', sha256: gone.sha256 },
      { path: 'gone.bin', sha256: randomSha(), baseVersion: 1 },
      { path: 're.bin', sha256: re1.sha256 },
      { path: 'back.bin', sha256: back1.sha256 },
      { path: 'back.bin', sha256: back2.sha256 },
      { path: 'art/case.png', sha256: randomSha() },
      { path: 'local.bin', sha256: randomSha() },
    ];
  }

  it('rebuilt from scratch from the events, gives the same answers on every branch', async () => {
    const p = await stack.seed.project();
    const probes = await richHistory(p);
    const node = await startReadModelNode(stack, nodeName('rebuild'));
    try {
      for (const branch of [undefined, 'feature/x']) {
        const body = { files: probes, includeRemoteOnly: true, branch };
        const live = await p.api.post(syncPath(p), body);
        expect(live.status).toBe(200);
        expect(await node.api(p).post(syncPath(p), body)).toMatchObject({ status: 200, body: live.body });
        if (!branch) expect(new Set(live.body.files.map((r: { status: string }) => r.status))).toEqual(new Set(sync.syncStatuses));
      }
      expect(await rowCounts(node.db, p.projectId)).toEqual(await rowCounts(liveSync, p.projectId));
    } finally {
      await node.stop();
    }
  });

  // A 25,000-file commit applied twice, by two nodes: a loaded host needs more than the usual minute.
  it('a consumer that crashed between the parts of a commit resumes on restart, losing and duplicating nothing', { timeout: 300_000 }, async () => {
    const p = await stack.seed.project();
    const ws = workspace(p);
    await richHistory(p);
    const names = nodeName('crash');
    const flaky = flakyEvents(stack.events, p.projectId, 3);
    const crashing = await startReadModelNode(stack, { ...names, events: flaky.events });
    const files = await seedConfirmedVersions(stack.databaseUrl, p, commit.MAX_COMMIT_ENTRIES);
    const big = await ws.commit({ set: files });
    await flaky.interrupted;
    // Three parts are staged, none visible: a commit shows whole or not at all.
    const { rows } = await crashing.db.query(
      'SELECT p.applied_seq, p.pending_seq, p.pending_part, (SELECT count(*)::int FROM tree t WHERE t.project_id = p.project_id AND t.commit_seq = $2) AS visible FROM progress p WHERE p.project_id = $1',
      [p.projectId, big],
    );
    expect(rows[0]).toEqual({ applied_seq: big - 1, pending_seq: big, pending_part: 3, visible: 0 });
    await crashing.stop();

    const restarted = await startReadModelNode(stack, names);
    try {
      const body = {
        files: [
          { path: files[0].path, sha256: files[0].sha256 },
          { path: 'a.bin', sha256: randomSha() },
        ],
        includeRemoteOnly: true,
      };
      const live = await syncWhenCurrent(p.api, p, body);
      const resumed = await syncWhenCurrent(restarted.api(p), p, body);
      expect(resumed.status).toBe(200);
      expect(resumed.body.latestCommitSeq).toBe(big);
      expect(resumed.body.files).toHaveLength(commit.MAX_COMMIT_ENTRIES + 5);
      expect(resumed.body).toEqual(live.body);
      expect(await rowCounts(restarted.db, p.projectId)).toEqual(await rowCounts(liveSync, p.projectId));
    } finally {
      await restarted.stop();
    }
  });

  it('answers 503 sync_catching_up with Retry-After while the read model is stalled, then the new commit', async () => {
    const p = await stack.seed.project();
    const ws = workspace(p);
    const names = nodeName('stall');
    const node = await startReadModelNode(stack, { ...names, catchUpMs: 300 });
    const blocker = new pg.Client({ connectionString: stack.databaseUrl });
    await blocker.connect();
    try {
      const committedBefore = Date.now();
      const before = await ws.commit({ set: [await ws.push('stall.bin')] });
      // The new node first replays every event the stream holds, the other tests' included.
      await expect
        .poll(async () => (await node.api(p).post(syncPath(p), { files: [] })).body, { timeout: 30_000 })
        .toEqual({ files: [], latestCommitSeq: before });
      const appliedBy = Date.now();
      // Staging is the projector's first write: holding its table stalls it as a stuck consumer would.
      await blocker.query('BEGIN');
      await blocker.query(`LOCK TABLE ${names.schema}.staged_entries IN EXCLUSIVE MODE`);
      await ws.commit({ set: [await ws.push('stall.bin')] });
      const f = await ws.push('stall.bin');
      const seq = await ws.commit({ set: [f] });
      const asked = Date.now();
      const stalled = await node.api(p).post(syncPath(p), { files: [{ path: 'stall.bin', sha256: f.sha256 }] });
      const answered = Date.now();
      expect(stalled).toMatchObject({ status: 503, body: { code: 'sync_catching_up', latestCommitSeq: seq, appliedSeq: before, commitsBehind: seq - before } });
      expect(seq - before).toBe(2);
      expect(stalled.headers.get('retry-after')).toBe('1');
      // The read model last advanced when it applied `before`: after that commit began, before the poll saw it.
      const { secondsBehind } = stalled.body as { secondsBehind: number };
      expect(secondsBehind).toBeGreaterThanOrEqual((asked - appliedBy) / 1000 - 0.05);
      expect(secondsBehind).toBeLessThanOrEqual((answered - committedBefore) / 1000 + 0.05);

      // A project the read model holds nothing of yet has no time since it advanced.
      const fresh = await stack.seed.project();
      const freshWs = workspace(fresh);
      const first = await freshWs.commit({ set: [await freshWs.push('first.bin')] });
      const unseen = await node.api(fresh).post(syncPath(fresh), { files: [] });
      expect(unseen).toMatchObject({
        status: 503,
        body: { code: 'sync_catching_up', latestCommitSeq: first, appliedSeq: 0, commitsBehind: first, secondsBehind: null },
      });

      await blocker.query('ROLLBACK');
      const caughtUp = await syncWhenCurrent(node.api(p), p, { files: [{ path: 'stall.bin', sha256: f.sha256 }] });
      expect(caughtUp).toMatchObject({ status: 200, body: { files: [{ status: 'up_to_date', remoteVersion: 3 }], latestCommitSeq: seq } });
    } finally {
      await blocker.end();
      await node.stop();
    }
  });
});
