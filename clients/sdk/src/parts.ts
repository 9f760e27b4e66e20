// How a large file is cut for a multipart upload and for a ranged download: pure rules, no I/O.

export const MiB = 1024 * 1024;
/** The store's bounds on a multipart upload (the API's, S3's): each part but the last of partSize. */
export const MIN_PART_SIZE = 8 * MiB;
export const MAX_PART_SIZE = 512 * MiB;
export const MAX_PARTS = 10_000;
/** The largest single PUT (5 GiB): a larger file always goes in parts, whatever the threshold. */
export const MAX_SINGLE_PUT = 5 * 1024 * MiB;
/** The largest file the API takes in parts: its most parts of the largest size. */
export const MAX_MULTIPART_FILE = MAX_PARTS * MAX_PART_SIZE;
/**
 * Parts every S3-compatible store takes in one upload: OpenStack Swift's S3 API stops at 1,000 unless
 * its operator raises it. Parts grow to stay within it up to 500 GiB (1,000 of 512 MiB); only a
 * larger file needs more, up to the API's 10,000.
 */
const PARTS_EVERY_STORE_TAKES = 1000;

/** From this size a file moves in parts: a multipart upload, a download in ranges. */
export const DEFAULT_MULTIPART_THRESHOLD = 64 * MiB;
/** Parts (or ranges) of one file in flight at once, each holding one of the flow's transfer slots. */
export const DEFAULT_PARTS_IN_FLIGHT = 4;

/**
 * The smallest part size: a part is a request of its own (signed, retried, listed), so parts far
 * smaller than the store's minimum only add requests and initiate bytes, while a lost part costs
 * its whole length again. 16 MiB moves in a second or two on a good link, so a retry or a killed
 * push loses little, and a 1 GiB file is 64 parts.
 */
const PART_FLOOR = 16 * MiB;
/**
 * A download's range: each one is made durable and recorded in the resume file once fetched, so a
 * range costs a flush and a small write; 32 MiB keeps that rare and a killed pull loses at most a
 * few ranges' bytes.
 */
const RANGE_FLOOR = 32 * MiB;
/** Ranges of one download at most: the resume file stays small even for a terabyte. */
const MAX_RANGES = 10_000;

export interface Span {
  /** From 0: the part number is index + 1. */
  index: number;
  /** First byte. */
  start: number;
  /** One past the last byte. */
  end: number;
}

/** Whether a file of `size` bytes goes in parts: from `threshold`, and always above a single PUT's limit. */
export function movesInParts(size: number, threshold: number = DEFAULT_MULTIPART_THRESHOLD): boolean {
  return size > 0 && (size >= threshold || size > MAX_SINGLE_PUT);
}

/** The smallest whole number of MiB, at least `floor`, that cuts `size` into at most `most` pieces. */
function pieceSize(size: number, floor: number, most: number): number {
  return Math.max(floor, Math.ceil(size / most / MiB) * MiB);
}

/**
 * The part size of a file of `size` bytes: 16 MiB, or the smallest whole MiB that keeps it within
 * 1,000 parts (above 16 GiB), at most 512 MiB (above 500 GiB, more parts instead).
 */
export function partSizeFor(size: number): number {
  return Math.min(MAX_PART_SIZE, pieceSize(size, PART_FLOOR, PARTS_EVERY_STORE_TAKES));
}

/** The range size of a download of `size` bytes. */
export function rangeSizeFor(size: number): number {
  return pieceSize(size, RANGE_FLOOR, MAX_RANGES);
}

/** `size` bytes cut into consecutive spans of `pieceSize` (the last shorter); none for an empty file. */
export function spans(size: number, pieceSize: number): Span[] {
  if (!(pieceSize > 0)) throw new RangeError(`a piece size must be positive, not ${pieceSize}`);
  const count = Math.ceil(size / pieceSize);
  return Array.from({ length: count }, (_, index) => ({ index, start: index * pieceSize, end: Math.min(size, (index + 1) * pieceSize) }));
}

/** How many parts a file of `size` bytes has at `partSize`. */
export function partCount(size: number, partSize: number): number {
  return Math.ceil(size / partSize);
}

/**
 * Why `size` bytes in parts of `partSize` with `parts` part MD5s is no multipart upload the API
 * takes, or undefined when it is one.
 */
export function partPlanProblem(size: number, partSize: number, parts: number): string | undefined {
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART_SIZE || partSize > MAX_PART_SIZE)
    return `part size ${partSize} is not from ${MIN_PART_SIZE} to ${MAX_PART_SIZE} bytes`;
  if (size <= 0 || size > MAX_MULTIPART_FILE) return `a file of ${size} bytes cannot be uploaded in parts`;
  const wanted = partCount(size, partSize);
  if (wanted > MAX_PARTS) return `${wanted} parts of ${partSize} bytes: more than ${MAX_PARTS}`;
  if (parts !== wanted) return `${parts} part digests for ${wanted} parts`;
  return undefined;
}

/**
 * The index runs of a set of spans, sorted and merged: [[0, 5], [7, 8]] is spans 0 to 4 and 7. How
 * a download's resume file records the ranges it holds: short whatever the order they finished in.
 */
export type Runs = [from: number, to: number][];

export function toRuns(indexes: Iterable<number>): Runs {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const runs: Runs = [];
  for (const index of sorted) {
    const last = runs.at(-1);
    if (last && last[1] === index) last[1] = index + 1;
    else runs.push([index, index + 1]);
  }
  return runs;
}

/** The indexes of `runs` below `count`; anything malformed (not a run of whole numbers) yields nothing. */
export function fromRuns(runs: unknown, count: number): Set<number> {
  const indexes = new Set<number>();
  if (!Array.isArray(runs)) return indexes;
  for (const run of runs) {
    if (!Array.isArray(run) || run.length !== 2) return new Set();
    const [from, to] = run as unknown[];
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return new Set();
    for (let i = Math.max(0, from as number); i < Math.min(count, to as number); i++) indexes.add(i);
  }
  return indexes;
}

/** What a resumable download records beside its bytes: which of its ranges are on disk. */
export interface RangeRecord {
  sha256: string;
  size: number;
  rangeSize: number;
  /** The ranges written and flushed to disk, as index runs. */
  held: Runs;
}

/**
 * The ranges a record says are on disk, when it describes this very download (same content, size
 * and range size); none otherwise, and none from a record that is not one (a half-written file).
 */
export function heldRanges(record: unknown, expected: { sha256: string; size: number }, rangeSize: number): Set<number> {
  if (typeof record !== 'object' || record === null) return new Set();
  const r = record as Partial<RangeRecord>;
  if (r.sha256 !== expected.sha256 || r.size !== expected.size || r.rangeSize !== rangeSize) return new Set();
  return fromRuns(r.held, Math.ceil(expected.size / rangeSize));
}
