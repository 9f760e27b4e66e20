import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { publicEvents, type commit, type retention } from '@lode/contracts';
import { fromBranchChanged, fromCommitCreated, fromLocksChanged, fromRetentionApplied, publicEventId } from './public-event-plan.ts';

const projectId = randomUUID();

function commitPart(part: number, fileCount: number): commit.CommitCreated {
  return {
    commitId: randomUUID(),
    projectId,
    branch: 'main',
    sequenceNum: 3,
    kind: 'merge',
    message: 'm',
    author: { userId: randomUUID(), userName: 'Ada' },
    createdAt: '2026-11-24T00:00:00.000Z',
    fileCount,
    part,
    parts: 2,
    entries: Array.from({ length: 300 }, (_, i) => ({
      fileId: randomUUID(),
      path: `f${i}`,
      action: 'add' as const,
      version: 1,
      sha256: 'a'.repeat(64),
      size: 1,
    })),
  };
}

describe('public events', () => {
  it('summarise a large commit from its first part: counts, the first 100 entries and the files route', () => {
    const event = fromCommitCreated(commitPart(1, 25_000), 'internal-1');
    expect(publicEvents.publicEventSchema.parse(event)).toBeTruthy();
    expect(event?.data).toMatchObject({ fileCount: 25_000, entriesTruncated: true, kind: 'merge' });
    expect((event?.data.entries as unknown[]).length).toBe(100);
    expect(event?.data.filesUrl).toMatch(new RegExp(`^/api/v1/projects/${projectId}/commits/[0-9a-f-]+/files$`));
    expect(fromCommitCreated(commitPart(2, 25_000), 'internal-2')).toBeUndefined();
  });

  it('take a stable id from the internal event, a valid UUID different per type', () => {
    expect(publicEventId('x', 'lock.acquired')).toBe(publicEventId('x', 'lock.acquired'));
    expect(publicEventId('x', 'lock.acquired')).not.toBe(publicEventId('x', 'lock.released'));
    expect(publicEventId('x', 'a')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('map branch and lock changes to their public types', () => {
    const base = { projectId, change: 1, afterSeq: 0, name: 'dev', forkedFrom: 'main', lineage: [] };
    expect(fromBranchChanged({ ...base, action: 'created' }, 'b1', new Date()).type).toBe('branch.created');
    expect(fromBranchChanged({ ...base, action: 'deleted' }, 'b2', new Date()).data).toEqual({ name: 'dev' });
    const released = fromLocksChanged(
      { projectId, action: 'released', reason: 'forced', by: { userId: randomUUID(), userName: 'Bo' }, at: 'now', locks: [] },
      'l1',
    );
    expect(released).toMatchObject({ type: 'lock.released', data: { reason: 'forced' } });
  });

  it('tell a retention run as its audit record, at the moment it finished, with the run as its source', () => {
    const run: retention.RetentionApplied = {
      projectId,
      runId: randomUUID(),
      trigger: 'schedule',
      by: null,
      versionCount: 3,
      fileCount: 2,
      logicalBytes: 342,
      freedObjects: 2,
      freedBytes: 42,
      lockedFiles: 1,
      appliedAt: '2026-11-24T03:00:00.000Z',
    };
    const event = fromRetentionApplied(run, run.runId);
    expect(publicEvents.publicEventSchema.parse(event)).toBeTruthy();
    const { projectId: _, ...data } = run;
    expect(event).toEqual({ id: publicEventId(run.runId, 'retention.applied'), type: 'retention.applied', projectId, occurredAt: run.appliedAt, data });
    expect(publicEvents.retentionAppliedData.parse(event.data)).toEqual(data);
  });
});
