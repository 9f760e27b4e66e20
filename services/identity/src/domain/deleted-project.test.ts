import { describe, expect, it } from 'vitest';
import { deletedProjectRefusal } from './deleted-project.ts';

describe('a deleted project', () => {
  const purgeAfter = new Date('2026-12-06T10:00:00.000Z');

  it('is refused with when it goes while it can be brought back, with when it went once purged', () => {
    expect(deletedProjectRefusal({ purge_after: purgeAfter, purged_at: null })).toMatchObject({
      code: 'project_deleted',
      details: { purgeAfter: '2026-12-06T10:00:00.000Z' },
    });
    expect(deletedProjectRefusal({ purge_after: purgeAfter, purged_at: new Date('2026-12-06T10:00:05.000Z') })).toMatchObject({
      code: 'project_purged',
      details: { purgedAt: '2026-12-06T10:00:05.000Z' },
    });
  });

  it('is not refused while live', () => {
    expect(deletedProjectRefusal({ purge_after: null, purged_at: null })).toBeUndefined();
  });
});
