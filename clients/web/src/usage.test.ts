import { describe, expect, it } from 'vitest';
import { chartSeries, dedupSaving, inUnit, quotaFill, toBytes } from './usage.ts';

describe('the Storage page', () => {
  it('names the dedup saving, never below nothing', () => {
    expect(dedupSaving(4000, 3000)).toEqual({ bytes: 1000, percent: 25 });
    expect(dedupSaving(1000, 1700)).toEqual({ bytes: 0, percent: 0 });
    expect(dedupSaving(0, 0)).toEqual({ bytes: 0, percent: 0 });
  });

  it('warns from 80 % of the quota and turns red once it is reached', () => {
    expect(quotaFill(500, 1000)).toEqual({ percent: 50, color: 'blue' });
    expect(quotaFill(799, 1000).color).toBe('blue');
    expect(quotaFill(800, 1000)).toEqual({ percent: 80, color: 'orange' });
    expect(quotaFill(1200, 1000)).toEqual({ percent: 120, color: 'red' });
    expect(quotaFill(0, 0)).toEqual({ percent: 0, color: 'blue' });
    expect(quotaFill(1, 0)).toEqual({ percent: 100, color: 'red' });
  });

  it('reads a typed size in its unit as whole bytes, and writes bytes back in the largest unit', () => {
    expect(toBytes(1.5, 'KiB')).toBe(1536);
    expect(toBytes('2', 'GiB')).toBe(2 * 1024 ** 3);
    expect(toBytes(0, 'MiB')).toBe(0);
    for (const bad of ['', 'x', -1]) expect(toBytes(bad, 'B')).toBeNull();
    expect(inUnit(10 * 1024 ** 3)).toEqual({ value: 10, unit: 'GiB' });
    expect(inUnit(1536)).toEqual({ value: 1.5, unit: 'KiB' });
    expect(inUnit(1000)).toEqual({ value: 1000, unit: 'B' });
  });

  it('scales both lines of the chart to the larger peak, zero at the bottom', () => {
    const { logical, stored, peak } = chartSeries(
      [
        { day: '2026-11-28', logicalBytes: 0, storedBytes: 0 },
        { day: '2026-11-29', logicalBytes: 2000, storedBytes: 1000 },
        { day: '2026-11-30', logicalBytes: 4000, storedBytes: 2000 },
      ],
      200,
      100,
    );
    expect(peak).toBe(4000);
    expect(logical.map(({ x, y }) => [x, y])).toEqual([
      [0, 100],
      [100, 50],
      [200, 0],
    ]);
    expect(stored.map(({ y }) => y)).toEqual([100, 75, 50]);
    // One day: a point in the middle; nothing stored: on the floor.
    expect(chartSeries([{ day: '2026-11-30', logicalBytes: 0, storedBytes: 0 }], 200, 100).stored).toEqual([{ x: 100, y: 100, day: '2026-11-30', bytes: 0 }]);
  });
});
