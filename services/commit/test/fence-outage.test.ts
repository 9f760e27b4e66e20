import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { lock, upload } from '@lode/contracts';
import { connectNats, NatsBus } from '@lode/bus';
import { createLogger } from '@lode/telemetry';
import { pushFile, TEST_NATS_URL, type PushedFile, type SeededProject } from '@lode/testkit';
import { startProcessStack, type ProcessStack } from '@lode/system/testing';

/** Commits in the stalled project: more than the commit service's pool (10), which fences holding connections would exhaust. */
const STALLED_COMMITS = 12;

/**
 * A lock service that does not answer a commit's fence must hold no database connection
 * and no project's sequence row. The lock processes are replaced by a stand-in on the same bus that
 * never answers one project's fences (as a dead replica would) and answers everyone else's at once.
 */
describe('a commit whose lock fence goes unanswered (separate processes on NATS)', () => {
  let stack: ProcessStack;
  let stalled: SeededProject;
  let bystander: SeededProject;
  let nc: Awaited<ReturnType<typeof connectNats>>;
  let standIn: NatsBus;
  const heldFences: (() => void)[] = [];
  const releaseFences = () => heldFences.splice(0).forEach((answer) => answer());
  const resolves = { asked: new Set<string>(), answered: new Set<string>() };

  beforeAll(async () => {
    // Bus calls wait long here, so nothing gives up on its own while the test holds the fences; the
    // statement limit is short for the last test.
    stack = await startProcessStack({ storage: 'local', env: { LODE_BUS_TIMEOUT_MS: '120000', LODE_DB_STATEMENT_TIMEOUT_MS: '5000' } });
    stalled = await stack.seed.project();
    bystander = await stack.seed.project();
    await stack.processes.lock.stop();

    const namespace = stack.env.LODE_BUS_NAMESPACE;
    nc = await connectNats(TEST_NATS_URL, 'test-fence-outage');
    standIn = new NatsBus(nc, createLogger('test', 'silent'), { namespace });
    standIn.serve(lock.fence, (request) =>
      request.projectId === stalled.projectId ? new Promise((resolve) => heldFences.push(() => resolve({ fenced: true }))) : Promise.resolve({ fenced: true }),
    );
    standIn.serve(lock.settleFence, async () => ({ releasedLocks: 0 }));
    // Which resolve_versions requests the upload service has answered: seen on the wire, so the
    // test knows every stalled commit is past its resolve and waiting for its fence.
    nc.subscribe(`${namespace}.${upload.resolveVersions.subject}`, {
      callback: (_, msg) => {
        if (msg.reply) resolves.asked.add(msg.reply);
      },
    });
    nc.subscribe('_INBOX.>', {
      callback: (_, msg) => {
        resolves.answered.add(msg.subject);
      },
    });
    await nc.flush();
  }, 180_000);
  afterAll(async () => {
    releaseFences();
    await standIn?.close();
    await nc?.close();
    await stack?.stop();
  });

  it('commits in another project and answers syncs meanwhile, and leaves the commit service’s pool free', async () => {
    const files = await Promise.all(
      Array.from({ length: STALLED_COMMITS }, (_, i) => pushFile(stalled.api, stalled.projectId, `stalled/${i}.bin`, randomBytes(16))),
    );
    const elsewhere = await pushFile(bystander.api, bystander.projectId, 'elsewhere.bin', randomBytes(16));

    let settledStalled = 0;
    const stalledCommits = files.map((f) => commitOf(stalled, f).finally(() => (settledStalled += 1)));
    await until(() => heldFences.length === STALLED_COMMITS, 'every stalled commit asked for its fence');
    await until(() => answeredResolves() >= STALLED_COMMITS, 'the upload service answered every stalled commit’s resolve');

    // Each of these needs the commit service's database: a transaction holding the stalled
    // project's sequence row, or the pool's every connection, would keep them waiting as long as
    // the fences (the hang guard below), not return while the fences are still unanswered.
    const [committed, synced, metrics] = await withinHangGuard(
      Promise.all([
        commitOf(bystander, elsewhere),
        stalled.api.post(`/api/v1/projects/${stalled.projectId}/sync`, { files: [{ path: 'stalled/0.bin', sha256: files[0].sha256 }] }),
        fetch(`${stack.processes.commit.opsUrl}/metrics`),
      ]),
    );
    expect(committed.status, JSON.stringify(committed.body)).toBe(201);
    expect(synced.status, JSON.stringify(synced.body)).toBe(200);
    expect(synced.body.files[0].status).toBe('local_only');
    expect(metrics.status).toBe(200);
    expect(settledStalled).toBe(0);
    expect(heldFences).toHaveLength(STALLED_COMMITS);

    // Once fenced, the stalled commits go through, numbered without gaps.
    releaseFences();
    const outcomes = await Promise.all(stalledCommits);
    expect(outcomes.map((r) => r.status)).toEqual(Array(STALLED_COMMITS).fill(201));
    expect(outcomes.map((r) => r.body.sequenceNum as number).sort((a, b) => a - b)).toEqual(Array.from({ length: STALLED_COMMITS }, (_, i) => i + 1));
  }, 180_000);

  it('answers a statement past its timeout with 503 service_unavailable and Retry-After', async () => {
    const f = await pushFile(bystander.api, bystander.projectId, 'history.bin', randomBytes(16));
    expect((await commitOf(bystander, f)).status).toBe(201);
    const blocker = new pg.Client({ connectionString: stack.databaseUrl });
    await blocker.connect();
    try {
      // The history's table locked away: its query waits until statement_timeout cancels it.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE commits.commit_entries IN ACCESS EXCLUSIVE MODE');
      const res = await bystander.api.get(`/api/v1/projects/${bystander.projectId}/files/${f.fileId}/versions`);
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(res.headers.get('retry-after')).toBe('1');
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }
  }, 120_000);

  function answeredResolves(): number {
    return [...resolves.asked].filter((reply) => resolves.answered.has(reply)).length;
  }
});

function commitOf(p: SeededProject, f: PushedFile) {
  return p.api.post(`/api/v1/projects/${p.projectId}/commits`, { message: 'work', fileVersions: [{ fileId: f.fileId, version: f.version, action: 'add' }] });
}

/** Polls a condition the test waits for; the deadline only guards against a hang. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: never happened`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Fails instead of hanging should the work wait for the held fences (it once did). */
async function withinHangGuard<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('still waiting while the fences are unanswered: blocked behind them')), 60_000);
  });
  try {
    return await Promise.race([work, guard]);
  } finally {
    clearTimeout(timer);
  }
}
