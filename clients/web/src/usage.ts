/** Pure rules of the Storage page: the dedup saving, the quota's share and colour, the chart's geometry. */

/** From this share of the quota on, the bar turns to a warning, as the server's `quota.warning` event does. */
export const QUOTA_WARNING_SHARE = 0.8;

/** What deduplication saves: the logical bytes the project does not store, and their share of the logical. */
export function dedupSaving(logicalBytes: number, storedBytes: number): { bytes: number; percent: number } {
  // Stored can pass logical (objects kept for collection, Git LFS objects no version names): no saving then.
  const bytes = Math.max(0, logicalBytes - storedBytes);
  return { bytes, percent: logicalBytes > 0 ? (bytes / logicalBytes) * 100 : 0 };
}

/** How full the quota is: the percentage (may pass 100, since the quota is a soft limit) and the bar's colour. */
export function quotaFill(storedBytes: number, quotaBytes: number): { percent: number; color: 'blue' | 'orange' | 'red' } {
  const share = quotaBytes > 0 ? storedBytes / quotaBytes : storedBytes > 0 ? Infinity : 0;
  const color = share >= 1 ? 'red' : share >= QUOTA_WARNING_SHARE ? 'orange' : 'blue';
  return { percent: Number.isFinite(share) ? share * 100 : 100, color };
}

export const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;
export type ByteUnit = (typeof BYTE_UNITS)[number];

/** A size typed in a unit, as whole bytes (what PUT /quota takes); null when it is not a size. */
export function toBytes(value: number | string, unit: ByteUnit): number | null {
  const number = typeof value === 'number' ? value : Number(value);
  if (value === '' || !Number.isFinite(number) || number < 0) return null;
  return Math.round(number * 1024 ** BYTE_UNITS.indexOf(unit));
}

/** A size in the largest unit it fills at least once, for prefilling the quota form. */
export function inUnit(bytes: number): { value: number; unit: ByteUnit } {
  let unit = 0;
  while (unit < BYTE_UNITS.length - 1 && bytes >= 1024 ** (unit + 1)) unit += 1;
  return { value: Number((bytes / 1024 ** unit).toFixed(3)), unit: BYTE_UNITS[unit] };
}

export interface ChartPoint {
  x: number;
  y: number;
  day: string;
  bytes: number;
}

/**
 * The two lines of the usage chart in a `width` by `height` box: one point per day, left to right,
 * scaled so the larger of the two series' peaks touches the top (zero stays at the bottom, so the
 * gap between the lines reads as the dedup saving). A single day sits in the middle.
 */
export function chartSeries(
  history: readonly { day: string; logicalBytes: number; storedBytes: number }[],
  width: number,
  height: number,
): { logical: ChartPoint[]; stored: ChartPoint[]; peak: number } {
  const peak = Math.max(0, ...history.map((day) => Math.max(day.logicalBytes, day.storedBytes)));
  const x = (index: number) => (history.length > 1 ? (index / (history.length - 1)) * width : width / 2);
  const y = (bytes: number) => (peak > 0 ? height - (bytes / peak) * height : height);
  const series = (pick: (day: (typeof history)[number]) => number) =>
    history.map((day, index) => ({ x: x(index), y: y(pick(day)), day: day.day, bytes: pick(day) }));
  return { logical: series((day) => day.logicalBytes), stored: series((day) => day.storedBytes), peak };
}
