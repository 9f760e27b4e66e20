import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LockRow } from '../repo/lock-rows.ts';
import { distinct, inRequestOrder, planAcquire, planRelease, toLock } from './lock-plan.ts';

const me = randomUUID();
const other = randomUUID();
const [a, b, c, d] = Array.from({ length: 4 }, () => randomUUID());
const lockedAt = new Date('2026-11-21T10:00:00.123Z');
const row = (fileId: string, userId: string): LockRow => ({
  fileId,
  path: `Levels/${fileId}.umap`,
  userId,
  userName: userId === me ? 'Me' : 'Other',
  userAvatarUrl: null,
  note: 'editing',
  lockedAt,
});
const paths = new Map([a, b, c].map((id) => [id, `Levels/${id}.umap`]));

describe('toLock', () => {
  it('shows the Lock fields the API answers, with isMine relative to the caller and lockedAt in ISO milliseconds', () => {
    expect(toLock(row(a, me), me)).toEqual({
      fileId: a,
      path: `Levels/${a}.umap`,
      userId: me,
      userName: 'Me',
      userAvatarUrl: null,
      isMine: true,
      note: 'editing',
      lockedAt: '2026-11-21T10:00:00.123Z',
    });
    expect(toLock(row(a, me), other).isMine).toBe(false);
  });
});

describe('planAcquire', () => {
  it('refuses neither free files nor the caller’s own locks', () => {
    const plan = planAcquire([a, b], paths, [row(b, me)], [], me);
    expect(plan).toEqual({ conflicts: [], notFound: [] });
  });

  it('reports another user’s lock as a conflict carrying that lock', () => {
    const plan = planAcquire([a], paths, [row(a, other)], [], me);
    expect(plan.conflicts).toEqual([{ reason: 'locked', ...toLock(row(a, other), me) }]);
  });

  it('reports another user’s commit in progress as a conflict, but not the caller’s own', () => {
    const fence = { fileId: a, userId: other, userName: 'Committer' };
    expect(planAcquire([a], paths, [], [fence], me).conflicts).toEqual([
      { reason: 'committing', fileId: a, path: paths.get(a), userId: other, userName: 'Committer' },
    ]);
  });

  it('prefers the lock over a fence when both cover a file', () => {
    const plan = planAcquire([a], paths, [row(a, other)], [{ fileId: a, userId: other, userName: null }], me);
    expect(plan.conflicts.map((conflict) => conflict.reason)).toEqual(['locked']);
  });

  it('answers files the upload service does not know as not found, in request order', () => {
    const plan = planAcquire([d, a, c], paths, [row(c, other)], [], me);
    expect(plan.notFound).toEqual([d]);
    expect(plan.conflicts.map((f) => f.fileId)).toEqual([c]);
  });
});

describe('planRelease', () => {
  it('releases the caller’s own locks and keeps another user’s without force', () => {
    const plan = planRelease([a, b, c], [row(a, me), row(b, other)], me, false);
    expect(plan.release.map((r) => r.fileId)).toEqual([a]);
    expect(plan.heldByOther.map((r) => r.fileId)).toEqual([b]);
    expect(plan.unlocked).toEqual([c]);
  });

  it('releases anyone’s lock with force', () => {
    const plan = planRelease([a, b], [row(a, me), row(b, other)], me, true);
    expect(plan.release.map((r) => r.fileId)).toEqual([a, b]);
    expect(plan.heldByOther).toEqual([]);
  });
});

describe('helpers', () => {
  it('counts a file listed twice once, keeping the first place', () => {
    expect(distinct([a, b, a, c, b])).toEqual([a, b, c]);
  });

  it('puts rows back in request order', () => {
    expect(inRequestOrder([row(c, me), row(a, me), row(b, me)], [a, b, c]).map((r) => r.fileId)).toEqual([a, b, c]);
  });
});
