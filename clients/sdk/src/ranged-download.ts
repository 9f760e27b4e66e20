import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { LodeTransferError } from './errors.ts';
import { sha256OfFile } from './hash.ts';
import { runAll } from './limit.ts';
import { DEFAULT_PARTS_IN_FLIGHT, heldRanges, rangeSizeFor, spans, toRuns, type RangeRecord, type Span } from './parts.ts';
import { answerOf, readText, requestFor } from './node-http.ts';
import { answerOfStorage, ensureDir, PIECE, refusal, withRetries, type TransferOptions } from './transfer.ts';

export interface RangedOptions extends TransferOptions {
  /** Runs each range's GET, e.g. the flow's limiter, so that ranges share its transfer slots. */
  limit?: <R>(task: () => Promise<R>) => Promise<R>;
  /** Ranges of this file in flight at once (default 4). */
  rangesInFlight?: number;
  /** Told of each range on disk: fetched now, or found there from an interrupted download. */
  onPart?: () => void;
  /**
   * A fresh URL for the same content, asked for when the store refuses one 403: a download URL
   * lives an hour or so, less than a very large file's ranges may wait for their turn.
   */
  refreshUrl?: () => Promise<string>;
}

/** Fresh URLs asked for per range at most: a URL refused fresh is refused for another reason. */
const REFRESHES_PER_RANGE = 2;

export interface RangedOutcome {
  /** The file's ranges in all (1 when the store sent it whole). */
  ranges: number;
  /** Ranges already on disk from an interrupted download, not fetched again. */
  resumed: number;
}

/** The NAME_MAX of common file systems: a partial file's name is kept within it. */
const MAX_NAME_BYTES = 255;

/**
 * Where a large download keeps its bytes (`data`, as long as the file, written at each range's
 * offset) and its record of the ranges on disk (`ranges`), beside the destination. Named from the
 * destination and the content, so that a later download of the same content to the same place
 * finds them, and one of other content never takes them for its own.
 */
export function resumablePaths(dest: string, sha256: string): { data: string; ranges: string } {
  const prefix = partialPrefix(dest);
  const stem = `${prefix}${sha256.slice(0, 16)}`;
  return { data: `${stem}.lode-partial`, ranges: `${stem}.lode-ranges` };
}

/** `<folder>/.<name>.`, with the name replaced by a hash of it where the partial's name would be too long. */
function partialPrefix(dest: string): string {
  const base = path.basename(dest);
  const name = Buffer.byteLength(base) + 32 > MAX_NAME_BYTES ? createHash('sha256').update(base).digest('hex').slice(0, 16) : base;
  return path.join(path.dirname(dest), `.${name}.`);
}

/**
 * Downloads a large file in byte ranges, several at once, into its partial file, recording each
 * range once it is on disk; an interrupted download (a killed process, a lost connection) resumes
 * from the ranges recorded. The whole file's size and SHA-256 are checked before it is renamed over
 * the destination; a mismatch removes the partial state and fails, so a retry starts clean. A store
 * that answers a Range with the whole object (200) is read as one stream instead.
 */
export async function downloadInRanges(
  name: string,
  url: string,
  dest: string,
  expected: { sha256: string; size: number },
  options: RangedOptions,
): Promise<RangedOutcome> {
  const limit = options.limit ?? ((task) => task());
  await ensureDir(path.dirname(dest));
  const paths = resumablePaths(dest, expected.sha256);
  await removeOtherContent(dest, paths);
  const rangeSize = rangeSizeFor(expected.size);
  const all = spans(expected.size, rangeSize);
  const held = await openPartial(paths, expected, rangeSize);
  for (const index of held) {
    options.onBytes?.(all[index].end - all[index].start);
    options.onPart?.();
  }
  const record = new RangeLog(paths.ranges, { sha256: expected.sha256, size: expected.size, rangeSize, held: [] }, held);
  const missing = all.filter((span) => !held.has(span.index));
  const file = await open(paths.data, 'r+');
  const urls = new FreshUrl(url, options.refreshUrl);
  /** One range, retried as any transfer, and again with a fresh URL when the store refuses its URL as expired. */
  const fetchSpan = async (span: Span): Promise<boolean> => {
    for (let refreshes = 0; ; refreshes++) {
      const used = urls.current;
      let whole = false;
      try {
        await withRetries(options, async () => {
          whole = await fetchRange(name, used, file, span, expected, options, record);
        });
        return whole;
      } catch (error) {
        if (!(error instanceof LodeTransferError && error.status === 403) || !options.refreshUrl || refreshes >= REFRESHES_PER_RANGE) throw error;
        await urls.renew(used);
      }
    }
  };
  let whole = false;
  try {
    if (missing.length > 0) {
      // The first range alone, to learn whether the store honours Range: one that answers 200
      // sends the whole object, read as one stream (checked as it comes).
      whole = await limit(() => fetchSpan(missing[0]));
      if (!whole) await runAll(missing.slice(1), options.rangesInFlight ?? DEFAULT_PARTS_IN_FLIGHT, async (span) => void (await limit(() => fetchSpan(span))));
    }
  } finally {
    await file.close();
  }
  if (!whole) {
    const written = await sha256OfFile(paths.data, options.signal);
    if (written.size !== expected.size || written.sha256 !== expected.sha256) {
      await Promise.all([rm(paths.data, { force: true }), rm(paths.ranges, { force: true })]);
      throw new LodeTransferError(
        name,
        `downloaded bytes do not match (size ${written.size}, sha256 ${written.sha256}; expected ${expected.size}, ${expected.sha256}); the partial download was removed`,
      );
    }
  }
  await record.settled();
  await rename(paths.data, dest);
  await rm(paths.ranges, { force: true });
  return whole ? { ranges: 1, resumed: 0 } : { ranges: all.length, resumed: held.size };
}

/**
 * The ranges already on disk from an interrupted download of this content; anything else (no
 * record, another range size, a data file of the wrong length) starts over with an empty data file
 * of the file's length, written at each range's offset.
 */
async function openPartial(paths: { data: string; ranges: string }, expected: { sha256: string; size: number }, rangeSize: number): Promise<Set<number>> {
  const record: unknown = await readFile(paths.ranges, 'utf8').then(
    (text) => JSON.parse(text) as unknown,
    () => null,
  );
  const held = heldRanges(record, expected, rangeSize);
  const onDisk = await stat(paths.data).catch(() => null);
  if (held.size > 0 && onDisk?.isFile() && onDisk.size === expected.size) return held;
  await rm(paths.ranges, { force: true });
  const file = await open(paths.data, 'w');
  try {
    await file.truncate(expected.size);
  } finally {
    await file.close();
  }
  return new Set();
}

/** Another content's partial state for the same destination: an older version's, never to be finished now. */
async function removeOtherContent(dest: string, mine: { data: string; ranges: string }): Promise<void> {
  const prefix = path.basename(partialPrefix(dest));
  const dir = path.dirname(dest);
  const names = await readdir(dir).catch(() => [] as string[]);
  const others = names.filter(
    (n) =>
      n.startsWith(prefix) && /^[0-9a-f]{16}\.lode-(partial|ranges)$/.test(n.slice(prefix.length)) && ![mine.data, mine.ranges].includes(path.join(dir, n)),
  );
  await Promise.all(others.map((n) => rm(path.join(dir, n), { force: true })));
}

/**
 * GETs one range into its place in the partial file, flushes it to disk, then records it. Answers
 * true when the store sent the whole object instead (200), which is then written whole and checked.
 */
async function fetchRange(
  name: string,
  url: string,
  file: FileHandle,
  span: Span,
  expected: { sha256: string; size: number },
  options: RangedOptions,
  record: RangeLog,
): Promise<boolean> {
  let received = 0;
  try {
    const request = requestFor(url, 'GET', { range: `bytes=${span.start}-${span.end - 1}` }, options.signal);
    const answered = answerOf(request);
    request.end();
    const response = await answered;
    const status = response.statusCode ?? 0;
    const count = (n: number) => {
      received += n;
      options.onBytes?.(n);
    };
    if (status === 200) {
      await record.forget();
      await receiveWhole(name, response, file, expected, count);
      options.onPart?.();
      return true;
    }
    if (status !== 206) throw refusal(name, answerOfStorage(response, await readText(response)));
    const sent = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(response.headers['content-range'] ?? ''));
    if (!sent || Number(sent[1]) !== span.start || Number(sent[2]) !== span.end - 1 || Number(sent[3]) !== expected.size) {
      response.resume();
      throw new LodeTransferError(
        name,
        `the store sent ${response.headers['content-range'] ?? 'no Content-Range'} for bytes ${span.start}-${span.end - 1} of ${expected.size}`,
        416,
      );
    }
    await writeAt(response, file, span.start, span.end - span.start, (piece) => count(piece.length));
    if (received !== span.end - span.start) throw new LodeTransferError(name, `the range ended after ${received} of ${span.end - span.start} bytes`);
    // Durable before it is recorded: a record never claims bytes a crash could still lose.
    await file.datasync();
    await record.add(span.index);
    options.onPart?.();
    return false;
  } catch (error) {
    options.onBytes?.(-received);
    throw error;
  }
}

/** A body written from `at` on, a MiB at a time (sockets deliver 64 KiB pieces); no more than `most` bytes are taken. */
async function writeAt(response: http.IncomingMessage, file: FileHandle, at: number, most: number, onPiece: (piece: Buffer) => void): Promise<void> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let position = at;
  let taken = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    await file.writev(pending, position);
    position += pendingBytes;
    pending = [];
    pendingBytes = 0;
  };
  for await (const piece of response as AsyncIterable<Buffer>) {
    taken += piece.length;
    if (taken > most) throw new Error(`the body is longer than the ${most} bytes asked for`);
    onPiece(piece);
    pending.push(piece);
    pendingBytes += piece.length;
    if (pendingBytes >= PIECE) await flush();
  }
  await flush();
}

/** The whole object, written from the start of the partial file and checked against its SHA-256 as it comes. */
async function receiveWhole(
  name: string,
  response: http.IncomingMessage,
  file: FileHandle,
  expected: { sha256: string; size: number },
  count: (n: number) => void,
): Promise<void> {
  const sha256 = createHash('sha256');
  let received = 0;
  await writeAt(response, file, 0, expected.size, (piece) => {
    sha256.update(piece);
    received += piece.length;
    count(piece.length);
  });
  const digest = sha256.digest('hex');
  if (received !== expected.size || digest !== expected.sha256)
    throw new LodeTransferError(name, `downloaded bytes do not match (size ${received}, sha256 ${digest}; expected ${expected.size}, ${expected.sha256})`);
}

/** A download's URL, renewed once for all the ranges refused with it at about the same time. */
class FreshUrl {
  current: string;
  readonly #refresh: (() => Promise<string>) | undefined;
  #renewing: Promise<void> | undefined;

  constructor(url: string, refresh: (() => Promise<string>) | undefined) {
    this.current = url;
    this.#refresh = refresh;
  }

  /** A new URL, unless it was renewed since `used` was handed out. */
  async renew(used: string): Promise<void> {
    if (this.current !== used || !this.#refresh) return;
    this.#renewing ??= this.#refresh()
      .then((url) => {
        this.current = url;
      })
      .finally(() => {
        this.#renewing = undefined;
      });
    await this.#renewing;
  }
}

/**
 * The record of ranges on disk, rewritten (to a temporary file, then renamed: a crash leaves the old
 * record or the new one) after each range, one write at a time.
 */
class RangeLog {
  readonly #file: string;
  readonly #record: RangeRecord;
  readonly #held: Set<number>;
  #writes: Promise<void> = Promise.resolve();

  constructor(file: string, record: RangeRecord, held: Set<number>) {
    this.#file = file;
    this.#record = record;
    this.#held = new Set(held);
  }

  add(index: number): Promise<void> {
    this.#held.add(index);
    return this.#queue(async () => {
      const temp = `${this.#file}.tmp`;
      await writeFile(temp, JSON.stringify({ ...this.#record, held: toRuns(this.#held) }));
      await rename(temp, this.#file);
    });
  }

  /** The bytes are being written anew from the start: no range is to be trusted until they are checked. */
  forget(): Promise<void> {
    this.#held.clear();
    return this.#queue(() => rm(this.#file, { force: true }));
  }

  settled(): Promise<void> {
    return this.#writes;
  }

  #queue(write: () => Promise<void>): Promise<void> {
    const next = this.#writes.then(write);
    this.#writes = next.catch(() => undefined);
    return next;
  }
}
