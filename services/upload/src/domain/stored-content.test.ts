import { describe, expect, it } from 'vitest';
import type { BlobStorage, StoredContent } from '@lode/storage';
import { ObjectVerifier } from './stored-content.ts';

/** A store whose reads answer only when the test releases them, counting the keys read. */
function slowStore(contents: Record<string, StoredContent>) {
  const reads: string[][] = [];
  const releases: (() => void)[] = [];
  const storage = {
    contentMany(keys: readonly string[]) {
      reads.push([...keys]);
      return new Promise<(StoredContent | null)[]>((resolve) => releases.push(() => resolve(keys.map((key) => contents[key] ?? null))));
    },
    async delete() {},
  } as unknown as BlobStorage;
  return { storage, reads, release: () => releases.splice(0).forEach((release) => release()) };
}

const big = { storageKey: 'p/1/u/big', sha256: 'a'.repeat(64), size: 256 };
const small = { storageKey: 'p/1/u/small', sha256: 'b'.repeat(64), size: 3 };

describe('ObjectVerifier', () => {
  it('lets a confirm retried during a read join it, and reads again once it is over', async () => {
    const { storage, reads, release } = slowStore({
      [big.storageKey]: { size: 256, sha256: big.sha256 },
      [small.storageKey]: { size: 3, sha256: 'c'.repeat(64) },
    });
    const verifier = new ObjectVerifier(storage);

    const first = verifier.verify([big]);
    const retried = verifier.verify([small, big]);
    expect(reads).toEqual([[big.storageKey], [small.storageKey]]);
    release();
    expect(await first).toEqual([undefined]);
    const [smallFailure, bigFailure] = await retried;
    expect(smallFailure?.code).toBe('content_mismatch');
    expect(bigFailure).toBeUndefined();

    const later = verifier.verify([big]);
    expect(reads).toHaveLength(3);
    release();
    expect(await later).toEqual([undefined]);
  });

  it('hands a store failure to every confirm waiting on the read, and forgets it', async () => {
    let calls = 0;
    const storage = {
      async contentMany() {
        calls++;
        throw new Error('store unreachable');
      },
    } as unknown as BlobStorage;
    const verifier = new ObjectVerifier(storage);
    const results = await Promise.allSettled([verifier.verify([big]), verifier.verify([big])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    await expect(verifier.verify([big])).rejects.toThrow('store unreachable');
    expect(calls).toBe(2);
  });
});
