import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branches, commit } from '@lode/contracts';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { randomSha } from './helpers.ts';

/**
 * The read model puts branch.changed and commit.created of a project in their order whatever order
 * its two consumers get them in: here a branch's first commit is published before the branch's
 * creation, as two consumers (or two replicas) may take them.
 */
describe.each(['local', 'nats'] as const)('branch changes and commits in their order (%s bus)', (bus) => {
  let stack: TestStack;
  let db: pg.Client;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const author = { userId: randomUUID(), userName: 'Ada' };
  const commitEvent = (projectId: string, sequenceNum: number, branch: string, path: string, branchChanges: number): commit.CommitCreated => ({
    commitId: randomUUID(),
    projectId,
    branch,
    sequenceNum,
    kind: 'commit',
    branchChanges,
    message: 'm',
    author,
    createdAt: new Date().toISOString(),
    fileCount: 1,
    part: 1,
    parts: 1,
    entries: [{ fileId: randomUUID(), path, action: 'add', version: 1, sha256: randomSha(), size: 1 }],
  });
  const publishCommit = (data: commit.CommitCreated) => stack.events.publish({ subject: commit.commitCreated.subject, id: `${data.commitId}.1`, data });
  const publishChange = (data: branches.BranchChanged) =>
    stack.events.publish({ subject: branches.branchChanged.subject, id: `${data.projectId}.branch.${data.change}`, data });
  const appliedUpTo = async (projectId: string, seq: number) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { rows } = await db.query<{ applied_seq: number }>('SELECT applied_seq FROM sync.progress WHERE project_id = $1', [projectId]);
      if ((rows[0]?.applied_seq ?? 0) >= seq) return;
      if (Date.now() > deadline) throw new Error(`the read model did not apply commit ${seq}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const livePaths = async (projectId: string, branch: string) =>
    (
      await db.query<{ path: string }>('SELECT path FROM sync.tree WHERE project_id = $1 AND branch = $2 AND NOT deleted ORDER BY path', [projectId, branch])
    ).rows.map((r) => r.path);

  it("applies a branch's creation before its first commit, copying the parent as it stood at the fork", async () => {
    const projectId = randomUUID();
    await publishCommit(commitEvent(projectId, 1, 'main', 'a.bin', 0));
    await publishCommit(commitEvent(projectId, 2, 'base', 'b.bin', 0));
    await appliedUpTo(projectId, 2);
    // The branch's first commit comes first; the creation it counts (branchChanges: 1) after.
    await publishCommit(commitEvent(projectId, 3, 'topic', 'c.bin', 1));
    await publishChange({
      projectId,
      change: 1,
      afterSeq: 2,
      name: 'topic',
      action: 'created',
      forkedFrom: 'base',
      lineage: [
        { branch: 'topic', after: 2, through: null },
        { branch: 'base', after: 1, through: 2 },
        { branch: 'main', after: 0, through: 1 },
      ],
    });
    await appliedUpTo(projectId, 3);
    expect(await livePaths(projectId, 'topic')).toEqual(['a.bin', 'b.bin', 'c.bin']);
  });

  it('holds a branch change until the commits before it are applied', async () => {
    const projectId = randomUUID();
    await publishCommit(commitEvent(projectId, 1, 'main', 'a.bin', 0));
    await appliedUpTo(projectId, 1);
    // Forked from base after its first commit (2), but published before that commit.
    await publishChange({
      projectId,
      change: 1,
      afterSeq: 2,
      name: 'topic',
      action: 'created',
      forkedFrom: 'base',
      lineage: [
        { branch: 'topic', after: 2, through: null },
        { branch: 'base', after: 1, through: 2 },
        { branch: 'main', after: 0, through: 1 },
      ],
    });
    await publishCommit(commitEvent(projectId, 2, 'base', 'b.bin', 0));
    await publishCommit(commitEvent(projectId, 3, 'topic', 'c.bin', 1));
    await appliedUpTo(projectId, 3);
    expect(await livePaths(projectId, 'topic')).toEqual(['a.bin', 'b.bin', 'c.bin']);
  });
});
