import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { busRequestsHandled, RetryingClient, untilAllReady, type SeededProject, type ServiceProcess, type TryOutcome } from '@lode/testkit';
import { STACK_SERVICES, startProcessStack, type ProcessStack, type StackService } from '@lode/system/testing';
import { describeTry, jetStreamConsumers, RunLog } from './scale-out-log.ts';
import { Workload, type AckedCommit } from './scale-out-workload.ts';

/**
 * Two replicas of every service in their NATS queue groups behind two gateways. A
 * mixed workload runs against both gateways while one replica of each service is SIGKILLed, then
 * restarted; clients retry as real ones do. Whatever a client was told succeeded must be there after.
 */
/** Generous: on a loaded CI machine the run takes many times as long as on an idle one. */
const TEST_TIMEOUT_MS = 600_000;

describe('scale-out: two replicas of every service behind two gateways', () => {
  let stack: ProcessStack;
  let db: pg.Client;
  const log = new RunLog();

  beforeAll(async () => {
    log.mark('stack starting');
    stack = await startProcessStack({
      storage: 's3',
      replicas: 2,
      gateways: 2,
      env: {
        // A call to a replica that died has no answer: the gateway gives up after this and the client retries.
        LODE_BUS_TIMEOUT_MS: '10000',
        // The fence a killed commit leaves behind lapses within the test (60 s by default).
        LODE_LOCK_FENCE_TTL_MS: '20000',
      },
    });
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    log.mark('stack up', stack.all.map((p) => `${p.name} pid ${p.child.pid}`).join(', '));
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('loses no acknowledged write when one replica of each service is killed mid-run', { timeout: TEST_TIMEOUT_MS }, async () => {
    log.mark('start');
    const seeded: { projectId?: string } = {};
    // Read while the processes still run: what each event consumer holds shows a step that never finished.
    onTestFailed(async () => {
      log.line(`failed; error logs of the processes:\n${errorLogs(stack.all)}`);
      log.line(`JetStream consumers:\n${await jetStreamConsumers(stack.env.NATS_URL, stack.env.LODE_BUS_NAMESPACE)}`);
      if (seeded.projectId) log.line(`read model: ${await readModelProgress(db, seeded.projectId)}`);
    });
    const owner = await stack.seed.project({ writeRateLimit: { perSecond: 100_000, burst: 1_000_000 } });
    seeded.projectId = owner.projectId;
    const member = (name: string) => stack.seed.member(owner.orgId, owner.projectId, 'member', name);
    const [second, locker, restorer] = [await member('Committer two'), await member('Locker'), await member('Restorer')];
    // A try gives up after 12 s: a call stuck on a killed replica would otherwise wait out the
    // gateway's own timeout (30 s for a confirm, 120 s for a restore) before the retry.
    const client = (u: SeededProject, attempts?: number, onTry?: (outcome: TryOutcome) => void) =>
      new RetryingClient(stack.gatewayUrls, { authorization: `Bearer ${u.key}`, 'x-device-id': u.deviceId }, { attempts, timeoutMs: 12_000 }, onTry);
    // The reader gives up on a sync sooner: its syncs are not writes, and a stop() must not wait on them.
    // The final sync check's client logs every try: what a read model that does not catch up answers.
    const clients = {
      first: client(owner),
      second: client(second),
      locker: client(locker),
      restorer: client(restorer),
      reader: client(owner, 3),
      check: client(owner),
      syncCheck: client(owner, undefined, (outcome) => log.line(`sync probe ${describeTry(outcome)}`)),
    };
    const run = new Workload(owner.projectId);
    const started = performance.now();
    const runProgress = () => `${JSON.stringify(snapshot(run))}, ${run.reads} reads, ${run.syncsUnavailable} syncs unavailable`;

    const workers = run.start([
      () => run.committer(clients.first, 'alpha'),
      () => run.committer(clients.second, 'beta'),
      () => run.locker(clients.locker),
      () => run.restorer(clients.restorer),
      () => run.reader(clients.reader),
    ]);
    log.mark('workload started', `project ${owner.projectId}, stream namespace ${stack.env.LODE_BUS_NAMESPACE}`);

    // 1. Both replicas of every service serve their share before anything is killed.
    await run.until('each replica of each service served a request', async () => {
      const served = await servedPerReplica(stack.replicas);
      return run.commits.length >= 6 && run.restores >= 2 && STACK_SERVICES.every((s) => served[s].every((n) => n > 0));
    });
    const servedBeforeKill = await servedPerReplica(stack.replicas);
    log.mark('workload running', `${runProgress()}; served per replica ${JSON.stringify(servedBeforeKill)}`);

    // 2. One replica of each service dies at once, with requests in flight, and so does the second
    // gateway: requests it had passed on are done by the services, but their answers are lost.
    const killedServices = STACK_SERVICES.map((s) => stack.replicas[s][0]);
    const victims = [...killedServices, stack.gateways[1]];
    const killedAt = snapshot(run);
    // From the kill on, how long each acknowledged commit waits for the read model: a killed sync
    // replica's events come back after the ack wait, and the survivor must apply them then.
    const readModelWaits = watchReadModelWaits(db, owner.projectId, () => run.commits.map((c) => c.sequenceNum));
    log.mark('kill', victims.map((p) => `${p.name} pid ${p.child.pid}`).join(', '));
    await Promise.all(victims.map((p) => p.kill()));
    log.mark('killed', runProgress());
    await run.until('the survivors carried on', async () => progressedSince(run, killedAt, { commits: 6, restores: 2, lockOps: 4 }));
    log.mark('survivors carried on', runProgress());

    // 3. The killed processes come back; the services rejoin their queue groups.
    log.mark('restart');
    victims.forEach((p) => p.restart());
    await untilAllReady(victims);
    log.mark('restarted', `${victims.map((p) => `${p.name} pid ${p.child.pid}`).join(', ')}; ${runProgress()}`);
    const restartedAt = snapshot(run);
    await run.until('the restarted replicas served requests', async () => {
      const served = await Promise.all(killedServices.map((p) => servedBy(p)));
      return progressedSince(run, restartedAt, { commits: 4, restores: 1, lockOps: 2 }) && served.every((n) => n > 0);
    });
    log.mark('stop', runProgress());
    await run.stop(workers);
    log.mark('stopped', runProgress());
    const { rows: fences } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM locks.fences WHERE project_id = $1', [owner.projectId]);

    const idle = STACK_SERVICES.filter((s) => servedBeforeKill[s].length !== 2 || servedBeforeKill[s].some((count) => count === 0));
    expect(idle, `bus requests (pings aside) handled by each replica before the kill: ${JSON.stringify(servedBeforeKill)}`).toEqual([]);
    expect(run.violations, 'reads that missed an acknowledged write while the run went on').toEqual([]);

    const acked = [...run.commits].sort((a, b) => a.sequenceNum - b.sequenceNum);
    const n = acked.length;
    // Every commit a client was told about, numbered 1..N with no gap and no duplicate, and nothing else committed.
    expect(acked.map((c) => c.sequenceNum)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(new Set(acked.map((c) => c.id)).size).toBe(n);
    const { rows: stored } = await db.query<{ id: string; seq: number }>(
      'SELECT id, sequence_num AS seq FROM commits.commits WHERE project_id = $1 ORDER BY sequence_num, id',
      [owner.projectId],
    );
    expect(stored).toEqual(acked.map((c) => ({ id: c.id, seq: c.sequenceNum })));
    // No number was used up by a commit that died: the next one is N + 1.
    const { rows: sequence } = await db.query<{ last: number }>('SELECT last_seq AS last FROM commits.project_sequences WHERE project_id = $1', [
      owner.projectId,
    ]);
    expect(sequence).toEqual([{ last: n }]);

    // Each acknowledged commit in the history of each of its files, and no version there that no client was told about.
    const history = await historyByFile(clients.check, owner.projectId, [...new Set(acked.flatMap((c) => c.files.map((f) => f.fileId)))]);
    const expectedHistory = new Map<string, string[]>();
    for (const c of acked) for (const f of c.files) expectedHistory.set(f.fileId, [...(expectedHistory.get(f.fileId) ?? []), `${f.version}:${c.id}`]);
    expect(history).toEqual(new Map([...expectedHistory].map(([fileId, versions]) => [fileId, versions.sort()])));

    // Every confirmed upload exists with its content, and that content is known to the project (initiate dedups it).
    const { rows: versions } = await db.query<{ key: string }>(
      `SELECT file_id || ':' || version || ':' || sha256 AS key FROM files.versions WHERE project_id = $1`,
      [owner.projectId],
    );
    const storedVersions = new Set(versions.map((v) => v.key));
    expect(run.confirmed.filter((f) => !storedVersions.has(`${f.fileId}:${f.version}:${f.sha256}`))).toEqual([]);
    expect(await run.dedupedContents(clients.check)).toEqual(run.confirmed.length);

    // Locks: the locker holds exactly what its last acknowledged call left it holding; a commit released its author's locks.
    log.mark('locks');
    await run.until(
      'commits released their authors’ locks (settle, or the commit.created fallback)',
      async () => {
        const held = await run.heldLocks(clients.check);
        return held.size === [...run.locks.values()].filter((s) => s === 'held').length && [...held.values()].every((userId) => userId === locker.userId);
      },
      90_000,
    );
    const held = await run.heldLocks(clients.check);
    expect(new Set(held.keys())).toEqual(new Set([...run.locks].filter(([, s]) => s === 'held').map(([fileId]) => fileId)));

    // Sync, once caught up, reports each committed file at its last acknowledged commit.
    log.mark('sync', `waiting for the read model to reach commit ${n}`);
    const listing = await run.syncListing(clients.syncCheck, TEST_TIMEOUT_MS - (performance.now() - started));
    log.mark('synced', `at commit ${listing.latestCommitSeq}`);
    const waits = await readModelWaits.stop();
    log.mark(
      'read model waits',
      `the longest an acknowledged commit waited for the read model after the kill: ${waits.longestMs} ms (through commit ${waits.appliedThrough})`,
    );
    expect(listing.latestCommitSeq).toBe(n);
    expect(new Map(listing.files.map((r) => [r.fileId, `${r.remoteVersion}:${r.remoteSha256}:${r.remoteCommitSeq}`]))).toEqual(tips(acked));

    // Every commit.created reached the read model: its progress and its history per version.
    const { rows: progress } = await db.query<{ applied: number }>('SELECT applied_seq AS applied FROM sync.progress WHERE project_id = $1', [owner.projectId]);
    expect(progress).toEqual([{ applied: n }]);
    const { rows: projected } = await db.query<{ key: string }>(
      `SELECT file_id || ':' || version || ':' || commit_seq AS key FROM sync.history WHERE project_id = $1 AND branch = 'main' ORDER BY 1`,
      [owner.projectId],
    );
    expect(projected.map((r) => r.key)).toEqual(acked.flatMap((c) => c.files.map((f) => `${f.fileId}:${f.version}:${c.sequenceNum}`)).sort());

    // No commit fence outlives its TTL: another user can now lock every committed file (a fence a
    // killed commit left behind answers `committing` until it lapses).
    const committedFiles = [...tips(acked).keys()];
    log.mark('fences');
    await run.until(
      'every committed file can be locked by another user',
      async () => (await run.lockConflicts(clients.locker, committedFiles)).length === 0,
      90_000,
    );
    log.mark('unfenced');

    process.stdout.write(
      `scale-out: read model recovery after the kill: ${waits.longestMs} ms\n` +
        `scale-out: ${n} commits (${run.restores} of them restores), ${run.confirmed.length} uploads, ${run.lockOps} lock calls, ${run.reads} reads; ` +
        `${run.syncsUnavailable} syncs unavailable, ${fences[0].n} fences left at the end of the run; served before the kill ${JSON.stringify(servedBeforeKill)}; ` +
        `retries ${JSON.stringify(Object.fromEntries(Object.entries(clients).map(([name, c]) => [name, Object.fromEntries(c.retried)])))}; ms from start ${JSON.stringify(log.phases)}\n`,
    );
  });
});

/** Bus requests each process of each service handled, pings from the gateways' readiness checks aside. */
async function servedPerReplica(replicas: Record<StackService, ServiceProcess[]>): Promise<Record<StackService, number[]>> {
  const entries = await Promise.all(STACK_SERVICES.map(async (s) => [s, await Promise.all(replicas[s].map(servedBy))] as const));
  return Object.fromEntries(entries) as Record<StackService, number[]>;
}

async function servedBy(p: ServiceProcess): Promise<number> {
  const handled = await busRequestsHandled(p);
  return [...handled].filter(([subject]) => !subject.endsWith('.ping')).reduce((sum, [, count]) => sum + count, 0);
}

type Progress = Pick<Workload, 'restores' | 'lockOps'> & { commits: number };

function snapshot(run: Workload): Progress {
  return { commits: run.commits.length, restores: run.restores, lockOps: run.lockOps };
}

function progressedSince(run: Workload, since: Progress, by: Progress): boolean {
  const now = snapshot(run);
  return (Object.keys(by) as (keyof Progress)[]).every((k) => now[k] - since[k] >= by[k]);
}

/** `version:commitId` of every version each file's history lists, all pages. */
async function historyByFile(api: RetryingClient, projectId: string, fileIds: string[]): Promise<Map<string, string[]>> {
  const history = new Map<string, string[]>();
  for (const fileId of fileIds) {
    const listed: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await api.get(`/api/v1/projects/${projectId}/files/${fileId}/versions?limit=200${query}`);
      if (page.status !== 200) throw new Error(`versions of ${fileId}: ${page.status} ${JSON.stringify(page.body)}`);
      listed.push(...page.body.data.map((v: { version: number; commitId: string }) => `${v.version}:${v.commitId}`));
      cursor = page.body.nextCursor;
    } while (cursor);
    history.set(fileId, listed.sort());
  }
  return history;
}

/** Each committed file's last acknowledged state: `version:sha256:sequenceNum`. */
function tips(acked: AckedCommit[]): Map<string, string> {
  const tip = new Map<string, string>();
  for (const c of acked) for (const f of c.files) tip.set(f.fileId, `${f.version}:${f.sha256}:${c.sequenceNum}`);
  return tip;
}

/** How far the sync read model has applied the project's commits, against the last one made. */
async function readModelProgress(db: pg.Client, projectId: string): Promise<string> {
  try {
    const { rows } = await db.query<{ applied: number | null; latest: number | null }>(
      `SELECT (SELECT applied_seq FROM sync.progress WHERE project_id = $1) AS applied,
              (SELECT last_seq FROM commits.project_sequences WHERE project_id = $1) AS latest`,
      [projectId],
    );
    return `applied commit ${rows[0].applied ?? 'none'} of ${rows[0].latest ?? 'none'}`;
  } catch (error) {
    return `could not be read: ${(error as Error).message}`;
  }
}

/**
 * Polls the read model's progress until stopped and keeps the longest time an acknowledged commit
 * waited for it: from the first poll that saw the commit acknowledged to the first that saw it
 * applied (so to within the poll's period). Never rejects: a database gone away ends the watch.
 */
function watchReadModelWaits(db: pg.Client, projectId: string, acknowledged: () => number[]) {
  const seenAt = new Map<number, number>();
  let longestMs = 0;
  let appliedThrough = 0;
  let stopping = false;
  const watching = (async () => {
    for (;;) {
      const now = performance.now();
      for (const seq of acknowledged()) {
        if (seenAt.has(seq) || seq <= appliedThrough) continue;
        seenAt.set(seq, now);
      }
      const rows = await db.query<{ applied: number }>('SELECT applied_seq AS applied FROM sync.progress WHERE project_id = $1', [projectId]).then(
        (result) => result.rows,
        () => undefined,
      );
      if (rows === undefined) return;
      const applied = rows[0]?.applied ?? 0;
      const at = performance.now();
      appliedThrough = applied;
      for (const [seq, since] of seenAt) {
        if (seq > applied) continue;
        longestMs = Math.max(longestMs, at - since);
        seenAt.delete(seq);
      }
      if (stopping && seenAt.size === 0) return;
      await sleep(100);
    }
  })();
  return {
    /** Once every commit seen acknowledged is applied (the caller has seen the read model current). */
    stop: async () => {
      stopping = true;
      await watching;
      return { longestMs: Math.round(longestMs), appliedThrough };
    },
  };
}

/** Every line a process logged at error level or above, named by process, for a failing run. */
function errorLogs(processes: ServiceProcess[]): string {
  return processes
    .flatMap((p) =>
      p
        .output()
        .split('\n')
        .filter((line) => /"level":(5|6)0/.test(line) || line.includes('restarted ---'))
        .map((line) => `[${p.name} ${p.opsUrl}] ${line}`),
    )
    .join('\n');
}
