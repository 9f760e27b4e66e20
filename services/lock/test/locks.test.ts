import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushFile, type PushedFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(['local', 'nats'] as const)('locks through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  let owner: SeededProject;
  let member: SeededProject;
  let admin: SeededProject;
  const locks = (query = '') => `/api/v1/projects/${owner.projectId}/locks${query}`;
  const push = (path: string) => pushFile(owner.api, owner.projectId, path, randomBytes(16));
  const ids = (files: PushedFile[]) => files.map((f) => f.fileId);
  const lockAs = (who: SeededProject, files: PushedFile[], note?: string) => who.api.post(locks(), { fileIds: ids(files), note });
  const releaseAs = (who: SeededProject, files: PushedFile[], force?: boolean) => who.api.delete(locks(), { fileIds: ids(files), force });
  const listAll = async (who: SeededProject, query = '') => (await who.api.get(locks(query))).body.data as { fileId: string; isMine: boolean }[];

  beforeAll(async () => {
    stack = await startTestStack({ bus });
    owner = await stack.seed.project();
    member = await stack.seed.member(owner.orgId, owner.projectId, 'member', 'Mia Member');
    admin = await stack.seed.member(owner.orgId, owner.projectId, 'admin');
  });
  afterAll(async () => stack?.stop());

  describe('POST /locks', () => {
    it('acquires free files and answers each lock with exactly the spec’s fields', async () => {
      const [a, b] = [await push('Levels/a.umap'), await push('Levels/b.umap')];
      const res = await lockAs(member, [a, b], 'lighting pass');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        acquired: [a, b].map((f) => ({
          fileId: f.fileId,
          path: f.path,
          userId: member.userId,
          userName: 'Mia Member',
          userAvatarUrl: null,
          isMine: true,
          note: 'lighting pass',
          lockedAt: expect.stringMatching(ISO_MS),
        })),
        conflicts: [],
        notFound: [],
      });
    });

    it('reports another user’s lock in conflicts, carrying the holder’s lock, and takes the rest', async () => {
      const [held, free] = [await push('Rigs/hero.fbx'), await push('Rigs/villain.fbx')];
      const first = await lockAs(member, [held], 'rigging');
      const res = await lockAs(owner, [held, free]);
      expect(res.body.acquired.map((l: { fileId: string }) => l.fileId)).toEqual([free.fileId]);
      expect(res.body.conflicts).toEqual([{ reason: 'locked', ...first.body.acquired[0], isMine: false }]);
    });

    it('refreshes a lock the caller already holds: new note and time, returned in acquired', async () => {
      const f = await push('refresh.psd');
      const first = await lockAs(member, [f], 'first');
      await new Promise((r) => setTimeout(r, 5));
      const again = await lockAs(member, [f]);
      expect(again.body.conflicts).toEqual([]);
      expect(again.body.acquired).toMatchObject([{ fileId: f.fileId, note: '', isMine: true }]);
      expect(Date.parse(again.body.acquired[0].lockedAt)).toBeGreaterThan(Date.parse(first.body.acquired[0].lockedAt));
    });

    it('answers unknown files and another project’s files alike in notFound, and reveals nothing of them', async () => {
      const other = await stack.seed.project();
      const foreign = await pushFile(other.api, other.projectId, 'secret/plans.psd', randomBytes(8));
      const mine = await push('mine.bin');
      const unknown = randomUUID();
      const res = await owner.api.post(locks(), { fileIds: [foreign.fileId, mine.fileId, unknown, mine.fileId] });
      expect(res.status).toBe(200);
      expect(res.body.notFound).toEqual([foreign.fileId, unknown]);
      expect(res.body.acquired.map((l: { fileId: string }) => l.fileId)).toEqual([mine.fileId]);
      expect(JSON.stringify(res.body)).not.toContain('secret');
      // The other project's own locks are untouched and invisible here.
      expect((await other.api.post(`/api/v1/projects/${other.projectId}/locks`, { fileIds: [foreign.fileId] })).body.acquired).toHaveLength(1);
      expect((await listAll(owner)).some((l) => l.fileId === foreign.fileId)).toBe(false);
    });

    it('accepts a note of 280 characters, counting an emoji as one', async () => {
      const f = await push('note.bin');
      const note = '🔒'.repeat(280);
      expect((await lockAs(owner, [f], note)).body.acquired[0].note).toBe(note);
    });

    it.each([
      ['a note over 280 characters', { fileIds: [randomUUID()], note: 'x'.repeat(281) }, 'note'],
      ['a note with a NUL character', { fileIds: [randomUUID()], note: 'a\u0000b' }, 'note'],
      ['no fileIds', {}, 'fileIds'],
      ['fileIds that are not an array', { fileIds: 'all' }, 'fileIds'],
      ['an empty fileIds', { fileIds: [] }, 'fileIds'],
      ['a malformed file id', { fileIds: ['abc'] }, 'fileIds.0'],
      ['a note that is not a string', { fileIds: [randomUUID()], note: 7 }, 'note'],
    ])('answers 400 for %s', async (_name, body, field) => {
      const res = await owner.api.post(locks(), body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', message: expect.stringContaining(field) });
    });

    it('answers 400 for a body that is not JSON and 413 above 1,000 files', async () => {
      expect((await owner.api.post(locks(), '{"fileIds": [')).body.code).toBe('invalid_json');
      const res = await owner.api.post(locks(), { fileIds: Array.from({ length: 1001 }, () => randomUUID()) });
      expect(res).toMatchObject({ status: 413, body: { code: 'batch_too_large', max: 1000 } });
    });
  });

  describe('GET /locks', () => {
    let project: SeededProject;
    let teammate: SeededProject;
    const listOf = (query = '') => project.api.get(`/api/v1/projects/${project.projectId}/locks${query}`);

    beforeAll(async () => {
      project = await stack.seed.project();
      teammate = await stack.seed.member(project.orgId, project.projectId, 'member');
      const files = await Promise.all(
        ['Art/a.png', 'Art/b.png', 'Art/c.png', 'Audio/d.wav', 'Levels/e.umap'].map((p) => pushFile(project.api, project.projectId, p, randomBytes(8))),
      );
      await project.api.post(`/api/v1/projects/${project.projectId}/locks`, { fileIds: ids(files.slice(0, 3)) });
      await teammate.api.post(`/api/v1/projects/${project.projectId}/locks`, { fileIds: ids(files.slice(3)) });
    });

    it('lists active locks by path in keyset pages, with isMine relative to the caller', async () => {
      const first = await listOf('?limit=2');
      expect(first.status).toBe(200);
      expect(first.body.data.map((l: { path: string }) => l.path)).toEqual(['Art/a.png', 'Art/b.png']);
      expect(first.body.data.every((l: { isMine: boolean }) => l.isMine)).toBe(true);
      const second = await listOf(`?limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.data.map((l: { path: string }) => l.path)).toEqual(['Art/c.png', 'Audio/d.wav']);
      const third = await listOf(`?limit=2&cursor=${second.body.nextCursor}`);
      expect(third.body).toEqual({ data: [expect.objectContaining({ path: 'Levels/e.umap', isMine: false, userId: teammate.userId })], nextCursor: null });
      const all = await listOf();
      expect(all.body.data).toHaveLength(5);
      expect(all.body.nextCursor).toBeNull();
    });

    it('filters by path prefix (ignoring letter case, as paths do) and by holder', async () => {
      const art = await listOf('?pathPrefix=art/');
      expect(art.body.data.map((l: { path: string }) => l.path)).toEqual(['Art/a.png', 'Art/b.png', 'Art/c.png']);
      const theirs = await listOf(`?userId=${teammate.userId}`);
      expect(theirs.body.data.map((l: { path: string }) => l.path)).toEqual(['Audio/d.wav', 'Levels/e.umap']);
      const both = await listOf(`?userId=${teammate.userId}&pathPrefix=Levels`);
      expect(both.body.data.map((l: { path: string }) => l.path)).toEqual(['Levels/e.umap']);
      expect((await listOf('?pathPrefix=Nothing/')).body).toEqual({ data: [], nextCursor: null });
    });

    it('refuses a cursor that was tampered with or made for other filters (400)', async () => {
      const first = await listOf('?limit=1&pathPrefix=Art');
      const cursor: string = first.body.nextCursor;
      expect((await listOf(`?limit=1&pathPrefix=Art&cursor=${cursor}`)).status).toBe(200);
      expect((await listOf(`?limit=1&pathPrefix=Audio&cursor=${cursor}`)).body.code).toBe('validation_failed');
      expect((await listOf(`?cursor=${cursor.slice(0, -2)}xx`)).body.code).toBe('validation_failed');
    });

    it.each([['limit=0'], ['limit=201'], ['limit=abc'], [`userId=not-a-uuid`], ['cursor=garbage'], ['pathPrefix=%00'], ['userId=a&userId=b']])(
      'answers 400 for ?%s',
      async (query) => {
        const res = await listOf(`?${query}`);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      },
    );
  });

  describe('DELETE /locks', () => {
    it('releases the caller’s own locks and reports the rest with reasons', async () => {
      const [mine, theirs, free] = [await push('del/mine.bin'), await push('del/theirs.bin'), await push('del/free.bin')];
      await lockAs(owner, [mine]);
      const held = await lockAs(member, [theirs]);
      const unknown = randomUUID();
      const res = await owner.api.delete(locks(), { fileIds: [mine.fileId, theirs.fileId, free.fileId, unknown] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        released: [expect.objectContaining({ fileId: mine.fileId, path: mine.path, userId: owner.userId, isMine: true })],
        notReleased: [
          { reason: 'held_by_other', ...held.body.acquired[0], isMine: false },
          { reason: 'not_locked', fileId: free.fileId, path: free.path },
        ],
        notFound: [unknown],
      });
      const listed = await listAll(owner);
      expect(listed.some((l) => l.fileId === mine.fileId)).toBe(false);
      expect(listed.some((l) => l.fileId === theirs.fileId)).toBe(true);
    });

    it('lets an org admin or owner force-release anyone’s lock', async () => {
      const [f, g] = [await push('force/a.bin'), await push('force/b.bin')];
      await lockAs(member, [f, g]);
      const byAdmin = await releaseAs(admin, [f], true);
      expect(byAdmin.body).toMatchObject({ released: [{ fileId: f.fileId, userId: member.userId, isMine: false }], notReleased: [] });
      const byOwner = await releaseAs(owner, [g], true);
      expect(byOwner.body.released).toMatchObject([{ fileId: g.fileId, userId: member.userId }]);
      expect((await lockAs(owner, [f, g])).body.acquired).toHaveLength(2);
    });

    it('answers a member’s forced request 403 forbidden and releases nothing, not even their own locks', async () => {
      const [own, others] = [await push('force/own.bin'), await push('force/others.bin')];
      await lockAs(member, [own]);
      await lockAs(owner, [others]);
      const res = await releaseAs(member, [own, others], true);
      expect(res).toMatchObject({ status: 403, body: { code: 'forbidden', message: expect.any(String) } });
      const listed = await listAll(owner);
      expect(listed.filter((l) => l.fileId === own.fileId || l.fileId === others.fileId)).toHaveLength(2);
    });

    it.each([
      ['no body', undefined, 'fileIds'],
      ['a force that is not a boolean', { fileIds: [randomUUID()], force: 'yes' }, 'force'],
      ['a malformed file id', { fileIds: [42] }, 'fileIds.0'],
    ])('answers 400 for %s', async (_name, body, field) => {
      const res = await owner.api.delete(locks(), body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', message: expect.stringContaining(field) });
    });
  });

  it('lets exactly one of 20 users racing for one file take it; the 19 others see the winner’s lock', async () => {
    const f = await push('race/contested.umap');
    const racers = await Promise.all(Array.from({ length: 20 }, () => stack.seed.member(owner.orgId, owner.projectId, 'member')));
    const results = await Promise.all(racers.map((racer) => lockAs(racer, [f])));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const winners = results.filter((r) => r.body.acquired.length === 1);
    expect(winners).toHaveLength(1);
    const winner = winners[0].body.acquired[0];
    const losers = results.filter((r) => r !== winners[0]);
    for (const loser of losers) expect(loser.body).toEqual({ acquired: [], conflicts: [{ reason: 'locked', ...winner, isMine: false }], notFound: [] });
  });
});
