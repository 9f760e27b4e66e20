import { describe, expect, it } from 'vitest';
import { BATCH_BODY_BUDGET, entryWeight, initiateBatches } from './upload-plan.ts';

const file = (i: number, parts = 0) => ({
  path: `f/${i}.bin`,
  digest: { size: 1, sha256: 'a'.repeat(64), ...(parts ? { parts: { partSize: 16 << 20, md5s: Array.from({ length: parts }, () => 'x'.repeat(24)) } } : {}) },
});

describe('initiate batches', () => {
  it('makes a small first batch, then full ones', () => {
    const files = Array.from({ length: 2500 }, (_, i) => file(i));
    expect(initiateBatches(files, 100, 1000).map((b) => b.length)).toEqual([100, 1000, 1000, 400]);
  });

  it('fills a batch with files in parts by the weight of their parts, not their count', () => {
    const big = Array.from({ length: 5 }, (_, i) => file(i, 9_000));
    expect(entryWeight(big[0])).toBeGreaterThan(BATCH_BODY_BUDGET / 3);
    const batches = initiateBatches([...big, ...Array.from({ length: 10 }, (_, i) => file(100 + i))], 100, 1000);
    expect(batches.map((b) => b.length)).toEqual([2, 2, 11]);
    for (const batch of batches) expect(batch.reduce((sum, f) => sum + entryWeight(f), 0)).toBeLessThanOrEqual(BATCH_BODY_BUDGET);
  });

  it('sends an entry heavier than the budget alone', () => {
    expect(initiateBatches([file(0), file(1, 30_000), file(2)], 100, 1000).map((b) => b.length)).toEqual([1, 1, 1]);
  });
});
