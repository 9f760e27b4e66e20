/**
 * Maps items through an async function with at most `limit` calls in flight, results in input order.
 * The same as @lode/runtime's mapConcurrently, which storage cannot import: runtime sits above it and
 * brings the database, the bus and express along.
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
