import { describe, expect, it } from 'vitest';
import { LocalBus } from '@lode/bus';
import { errors } from '@lode/errors';
import { lock, type Actor } from '@lode/contracts';
import { createLogger } from '@lode/telemetry';
import { placeFencePages } from './fence.ts';

const actor: Actor = {
  projectId: '00000000-0000-4000-8000-000000000001',
  orgId: '00000000-0000-4000-8000-000000000002',
  userId: '00000000-0000-4000-8000-000000000003',
  userName: 'Ada',
  userAvatarUrl: null,
  keyId: '00000000-0000-4000-8000-000000000004',
} as Actor;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const lockedBy = (fileId: string) => ({ fileId, path: `p/${fileId}`, userId: id(99), userName: 'Bo', lockedAt: '2026-11-24T00:00:00.000Z' });

/** A lock service on an in-process bus that refuses the pages holding `locked` files, and records the fences it placed. */
function lockService(locked: readonly string[]) {
  const bus = new LocalBus(createLogger('test', 'silent'));
  const placed: string[] = [];
  bus.serve(lock.fence, async ({ fileIds, fenceId }) => {
    const held = fileIds.filter((fileId) => locked.includes(fileId));
    if (held.length > 0) throw errors.fileLocked(held.map(lockedBy));
    placed.push(fenceId);
    return { fenced: true as const };
  });
  return { bus, placed };
}

async function* pages(...lists: string[][]): AsyncIterable<string[]> {
  for (const list of lists) yield list;
}

describe('placeFencePages', () => {
  it('places one fence per page and answers every placed fence for settling', async () => {
    const { bus, placed } = lockService([]);
    const fence = placeFencePages(bus, actor, pages([id(1), id(2)], [id(3)], [id(4)]), 60_000);
    await fence.placed();
    expect(placed).toHaveLength(3);
    expect((await fence.placedIds()).sort()).toEqual([...placed].sort());
  });

  it('refuses with one file_locked naming the locked files of every page, and settles only the fences placed', async () => {
    const { bus, placed } = lockService([id(2), id(5)]);
    const fence = placeFencePages(bus, actor, pages([id(1), id(2)], [id(3)], [id(4), id(5)]), 60_000);
    const refusal = await fence.placed().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ code: 'file_locked', details: { lockedFiles: [lockedBy(id(2)), lockedBy(id(5))] } });
    expect(await fence.placedIds()).toEqual(placed);
    expect(placed).toHaveLength(1);
  });

  it('answers a failure to read the pages as itself, after the fences asked so far', async () => {
    const { bus } = lockService([]);
    async function* failing(): AsyncIterable<string[]> {
      yield [id(1)];
      throw new Error('database gone');
    }
    const fence = placeFencePages(bus, actor, failing(), 60_000);
    await expect(fence.placed()).rejects.toThrow('database gone');
    expect(await fence.placedIds()).toHaveLength(1);
  });
});
