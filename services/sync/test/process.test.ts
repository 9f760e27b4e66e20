import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { commit } from '@lode/contracts';
import type { ServiceProcess } from '@lode/testkit';
import { seedConfirmedVersions, spawnServiceProcess, startProcessStack, type ProcessStack } from '@lode/system/testing';
import { liveRow, workspace } from './helpers.ts';

describe('the sync service as its own process on NATS', () => {
  let stack: ProcessStack;
  let db: pg.Client;
  const count = async (sql: string, projectId: string) => (await db.query<{ n: number }>(sql, [projectId])).rows[0].n;

  beforeAll(async () => {
    stack = await startProcessStack({ storage: 'local' });
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('killed while applying a large commit, it applies the commit once after a restart, whole', { timeout: 120_000 }, async () => {
    const p = await stack.seed.project();
    const ws = workspace(p);
    const first = await ws.push('first.bin');
    const firstSeq = await ws.commit({ set: [first] });
    // Read your writes across processes: the commit service answered, the sync process applied.
    expect((await ws.sync({ files: [{ path: 'first.bin', sha256: first.sha256 }] })).body).toEqual({
      files: [liveRow('first.bin', 'up_to_date', first, firstSeq)],
      latestCommitSeq: firstSeq,
    });

    // Holding the tree stalls the projector on the commit's last part, with the others staged.
    await db.query('BEGIN');
    await db.query('LOCK TABLE sync.tree IN EXCLUSIVE MODE');
    const files = await seedConfirmedVersions(stack.databaseUrl, p, commit.MAX_COMMIT_ENTRIES);
    const big = await ws.commit({ set: files });
    await expect
      .poll(
        async () => (await db.query("SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE NOT l.granted AND c.relname = 'tree'")).rowCount,
        {
          timeout: 30_000,
        },
      )
      .toBe(1);
    stack.processes.sync.child.kill('SIGKILL');
    await stack.processes.sync.stop();
    await db.query('ROLLBACK');
    expect(await count('SELECT count(*)::int AS n FROM sync.tree WHERE project_id = $1', p.projectId)).toBe(1);

    // The killed process never acked the last part: JetStream hands it to the new one after its ack wait.
    let restarted: ServiceProcess | undefined = spawnServiceProcess('sync', stack.env);
    try {
      const listing = () => ws.sync({ files: [], includeRemoteOnly: true });
      // 503 sync_catching_up until then.
      await expect.poll(async () => (await listing()).status, { timeout: 90_000, interval: 1000 }).toBe(200);
      const { body } = await listing();
      expect(body.latestCommitSeq).toBe(big);
      expect(body.files).toHaveLength(commit.MAX_COMMIT_ENTRIES + 1);
      expect(body.files[0]).toEqual({
        path: files[0].path,
        status: 'missing',
        fileId: files[0].fileId,
        remoteVersion: 1,
        remoteSha256: files[0].sha256,
        remoteCommitSeq: big,
        remoteSize: files[0].size,
      });
      expect(body.files.at(-1)).toEqual(liveRow('first.bin', 'missing', first, firstSeq));
      expect(await count('SELECT count(*)::int AS n FROM sync.tree WHERE project_id = $1', p.projectId)).toBe(commit.MAX_COMMIT_ENTRIES + 1);
      expect(await count('SELECT count(*)::int AS n FROM sync.history WHERE project_id = $1', p.projectId)).toBe(commit.MAX_COMMIT_ENTRIES + 1);
      expect(await count('SELECT count(*)::int AS n FROM sync.staged_entries WHERE project_id = $1', p.projectId)).toBe(0);
      expect(await restarted.stop()).toBe(0);
      restarted = undefined;
    } finally {
      await restarted?.stop();
    }
  });
});
