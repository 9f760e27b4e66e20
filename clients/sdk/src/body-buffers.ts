/**
 * A body up to this size is read (or received) whole and moved in one piece: one read, one write,
 * no stream machinery. 16 transfers in flight hold at most 16 of them; larger bodies stream.
 */
export const WHOLE_MAX = 1024 * 1024;

/**
 * The sizes of the reused body buffers; a body takes the smallest that holds it. The small one is
 * for what crosses to the download writer's thread: each move charges that thread the whole buffer
 * in external memory, a cost that grows with the buffer's size. The large one holds a
 * PUT's WHOLE_MAX and the one byte more it reads, to see a file that grew since it was hashed.
 */
const SIZES = [128 * 1024, WHOLE_MAX + 1];
/** Buffers kept of each size between bursts: more than the transfers in flight at once. */
const KEPT = 64;
/**
 * Kept buffers by size. Fresh ones each time left the download writer's thread holding the written
 * bodies until its garbage collector ran, which raised a pull's peak memory.
 */
const spare = new Map(SIZES.map((size) => [size, [] as ArrayBuffer[]]));

/** A buffer of at least `bytes` (at most WHOLE_MAX + 1), kept or new. */
export function takeBody(bytes: number): ArrayBuffer {
  const size = SIZES.find((candidate) => candidate >= bytes);
  if (size === undefined) throw new RangeError(`a whole body holds at most ${WHOLE_MAX} bytes, not ${bytes}`);
  return spare.get(size)?.pop() ?? new ArrayBuffer(size);
}

/** Keeps a buffer takeBody gave, once nothing reads or writes it any more. */
export function giveBackBody(buffer: ArrayBuffer): void {
  const kept = spare.get(buffer.byteLength);
  if (kept && kept.length < KEPT) kept.push(buffer);
}
