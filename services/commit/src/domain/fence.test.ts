import { describe, expect, it } from 'vitest';
import { LocalBus } from '@lode/bus';
import { errors } from '@lode/errors';
import { drafts, lock, type Actor } from '@lode/contracts';
import { createLogger } from '@lode/telemetry';
import { draftFenceTtlMs, placeFencePages } from './fence.ts';

const actor: Actor = {
  projectId: '00000000-0000-4000-8000-000000000001',
  orgId: '00000000-0000-4000-8000-000000000002',
  userId: '00000000-0000-4000-8000-000000000003',
  userName: 'Ada',
  userAvatarUrl: null,
  keyId: '00000000-0000-4000-8000-000000000004',
} as Actor;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const lockedBy = (fileId: string) => ({
  fileId,
  path: `p/${fileId}`,
  userId: id(99),
  userName: 'Bo',
  note: 'lighting pass',
  lockedAt: '2026-11-24T00:00:00.000Z',
});

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
    expect(refusal).toMatchObject({ code: 'file_locked', details: { lockedFiles: [lockedBy(id(2)), lockedBy(id(5))], lockedFileCount: 2 } });
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

  it('keeps at most two fence requests in flight, reading the next page only once one is answered', async () => {
    const bus = new LocalBus(createLogger('test', 'silent'));
    let inFlight = 0;
    let mostInFlight = 0;
    const read: number[] = [];
    bus.serve(lock.fence, async () => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      // Answers on a later turn of the event loop, so that requests sent together overlap.
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return { fenced: true as const };
    });
    async function* tenPages(): AsyncIterable<string[]> {
      for (let n = 1; n <= 10; n++) {
        read.push(inFlight);
        yield [id(n)];
      }
    }
    const fence = placeFencePages(bus, actor, tenPages(), 60_000);
    await fence.placed();
    expect(await fence.placedIds()).toHaveLength(10);
    expect(mostInFlight).toBe(2);
    expect(Math.max(...read)).toBeLessThanOrEqual(1);
  });

  it('names the first 100 locked files in file id order, however the pages answer, and counts them all', async () => {
    const bus = new LocalBus(createLogger('test', 'silent'));
    const pageFiles = (page: number) => Array.from({ length: 60 }, (_, i) => id(page * 1000 + i));
    let secondAnswered: () => void = () => undefined;
    const second = new Promise<void>((resolve) => (secondAnswered = resolve));
    bus.serve(lock.fence, async ({ fileIds }) => {
      // The first page answers only after the second: its files must still come first.
      if (fileIds[0] === id(1000)) await second;
      if (fileIds[0] === id(2000)) setImmediate(secondAnswered);
      throw errors.fileLocked(fileIds.map(lockedBy));
    });
    async function* pages(): AsyncIterable<string[]> {
      for (let page = 1; page <= 3; page++) yield pageFiles(page);
    }
    const refusal = await placeFencePages(bus, actor, pages(), 60_000)
      .placed()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    const expected = [...pageFiles(1), ...pageFiles(2)].slice(0, 100).map(lockedBy);
    expect(refusal).toMatchObject({ code: 'file_locked', details: { lockedFiles: expected, lockedFileCount: 180 } });
  });
});

describe('draftFenceTtlMs', () => {
  it('asks the usual lifetime for a small draft, longer with its size, and never more than the cap', () => {
    expect(draftFenceTtlMs(25_000, 60_000)).toBe(60_000);
    expect(draftFenceTtlMs(1_000_000, 60_000)).toBe(500_000);
    expect(draftFenceTtlMs(10_000_000, 60_000)).toBe(drafts.MAX_FINALIZE_FENCE_MS);
    // An operator's longer usual lifetime is kept.
    expect(draftFenceTtlMs(10, 900_000)).toBe(900_000);
  });
});
