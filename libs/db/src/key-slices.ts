/**
 * Rows one statement of a bulk copy takes. One statement over a million-file tree can come close to
 * the statement timeout on a busy machine; a slice of this many stays far inside it.
 */
export const ROWS_PER_SLICE = 100_000;

/** Below every id the services generate (random UUIDs are never nil): where a slice by id starts. */
export const BEFORE_FIRST_ID = '00000000-0000-0000-0000-000000000000';

/** What one slice handled: how many rows, and the key of the last, where the next slice starts after. */
export interface Slice<K> {
  count: number;
  last: K | null;
}

/**
 * Runs `slice` over a large set of rows in key order, `size` rows a statement, each after the last
 * key of the one before, until a short slice: all in the caller's transaction, so readers see the
 * whole change or none of it.
 */
export async function inKeySlices<K>(first: K, size: number, slice: (after: K, size: number) => Promise<Slice<K>>): Promise<void> {
  for (let after = first; ;) {
    const { count, last } = await slice(after, size);
    if (count < size || last === null) return;
    after = last;
  }
}
