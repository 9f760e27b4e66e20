// How the upload flow groups files into initiate-batch calls: a pure rule, no I/O.
import type { ContentDigest } from './hash.ts';

/**
 * What one initiate-batch body may weigh, as estimated by entryWeight. The gateway takes an
 * initiate-batch body of a few MiB (1,000 entries of the longest paths), or less where its operator
 * lowered the limit: a file of 10,000 parts describes each one, so files in parts fill a batch
 * long before 1,000 of them do.
 */
export const BATCH_BODY_BUDGET = 1024 * 1024;

/** An entry's JSON, about: its hashes, size and names, its path, and each part's size and MD5. */
export function entryWeight(file: { path: string; digest: ContentDigest }): number {
  return 160 + Buffer.byteLength(file.path) + (file.digest.parts?.md5s.length ?? 0) * 56;
}

/**
 * The files cut into batches, in order: the first of at most `first` entries (no byte moves before
 * it is answered), the others of at most `size`, each within BATCH_BODY_BUDGET (a single entry over
 * it goes alone).
 */
export function initiateBatches<T extends { path: string; digest: ContentDigest }>(files: readonly T[], first: number, size: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let weight = 0;
  for (const file of files) {
    const w = entryWeight(file);
    const most = batches.length === 0 ? first : size;
    if (current.length > 0 && (current.length >= most || weight + w > BATCH_BODY_BUDGET)) {
      batches.push(current);
      current = [];
      weight = 0;
    }
    current.push(file);
    weight += w;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
