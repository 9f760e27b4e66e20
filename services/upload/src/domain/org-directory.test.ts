import { describe, expect, it } from 'vitest';
import { OrgDirectory } from './org-directory.ts';

describe("an org's directory", () => {
  /** A directory over an org of `count` projects, recording the pages asked for. */
  function directory(count: number) {
    const asked: { cursor: string | undefined; limit: number }[] = [];
    const projects = Array.from({ length: count }, (_, i) => ({ id: `p${i}`, name: `P${i}`, slug: `p${i}`, deletedAt: null, purgeAfter: null }));
    const org = new OrgDirectory({
      storedProjects: async (_orgId, page) => {
        asked.push(page);
        const from = Number(page.cursor ?? 0);
        const to = from + page.limit;
        return { data: projects.slice(from, to), nextCursor: to < count ? String(to) : null };
      },
      myOrgs: async () => [],
    });
    return { org, asked };
  }

  it('learns whether an org exists from one project at most, whatever it holds', async () => {
    const { org, asked } = directory(1000);
    await org.assertOrg('o');
    expect(asked).toEqual([{ cursor: undefined, limit: 1 }]);
  });

  it('reads every page of the projects once, then answers their ids from what it read', async () => {
    const { org, asked } = directory(450);
    expect(await org.projectIdsOf('o', 'new')).toHaveLength(451);
    expect(asked.map((page) => page.cursor)).toEqual([undefined, '200', '400']);
    expect(await org.projectIdsOf('o')).toHaveLength(450);
    expect(asked).toHaveLength(3);
  });
});
