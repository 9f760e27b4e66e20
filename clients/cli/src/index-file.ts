import { constants, isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { INDEX_FORMAT, lineFinder, parseHeaderLine, sectionsOf, type IndexHeader, type IndexLayout, type ParsedIndex } from './index-format.ts';
import { CliError } from './failure.ts';
import { parseTextIndex } from './index-text-v1.ts';

/** What is read first: the header line and, for a small index, the whole of it. */
const FIRST_READ = 64 * 1024;
/**
 * Records read one at a time before the rest are read at once: a command going through many lines
 * (a walk's status, a compaction) reads the section in one go rather than line by line.
 */
const SINGLE_READS = 512;

/**
 * The index in `file` (index-format.ts): everything but its records, which are read where they lie
 * when asked for, from the file as it was opened (a rewrite by another command renames a new file
 * over it, leaving this one as it was). Undefined when there is none, or none this code can read: it
 * is then made again. Reads are synchronous: records are decoded by synchronous lookups, and the rest
 * is read once, before anything else can be done with the index.
 *
 * On Windows the records are read at once and the file closed: a file held open there cannot be
 * renamed over, and another command's compaction would fail.
 */
export function readIndex(file: string): ParsedIndex | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, error);
  }
  let index: ParsedIndex | undefined;
  try {
    index = openedIndex(file, fd);
    if (index && process.platform === 'win32') index.readAll();
  } catch (error) {
    throw error instanceof CliError ? error : unreadable(file, error);
  } finally {
    if (!index || index.format !== INDEX_FORMAT) closeSync(fd);
  }
  return index;
}

function openedIndex(file: string, fd: number): ParsedIndex | undefined {
  const length = fstatSync(fd).size;
  const first = readAt(file, fd, 0, Math.min(length, FIRST_READ));
  const newline = first.indexOf(10);
  if (newline < 0) return undefined;
  const parsed = parseHeaderLine(first.toString('utf8', 0, newline));
  if (!parsed) return undefined;
  if (parsed.format === 1 && !parsed.layout) {
    // Longer than a string can be: not an index the first format's writer, which joined it into one, wrote.
    if (length > constants.MAX_STRING_LENGTH) return undefined;
    const bytes = length <= first.length ? first : Buffer.concat([first, readAt(file, fd, first.length, length - first.length)]);
    return parseTextIndex(textOf(bytes), parsed.header, length);
  }
  if (parsed.format !== INDEX_FORMAT || !parsed.layout) return undefined;
  return sectionedIndex(file, fd, length, first, newline + 1, parsed.header, parsed.layout);
}

/** An index of the current format: everything before the records read now, the records when asked. */
function sectionedIndex(
  file: string,
  fd: number,
  length: number,
  first: Buffer,
  headerBytes: number,
  header: IndexHeader,
  layout: IndexLayout,
): ParsedIndex | undefined {
  const at = sectionsOf(headerBytes, layout);
  if (at.end !== length) return undefined;
  // A buffer of its own, starting at the file's start: the uint32 sections lie at multiples of 4 in it.
  const head = Buffer.from(new ArrayBuffer(at.records));
  const copied = first.copy(head, 0, 0, Math.min(first.length, at.records));
  if (copied < at.records) readInto(file, fd, head, copied, at.records - copied, copied);
  const n = layout.lines;
  if (endianness() === 'BE') head.subarray(at.pathEnds, at.paths).swap32();
  const pathEnds = new Uint32Array(head.buffer, at.pathEnds, n);
  const recordEnds = new Uint32Array(head.buffer, at.recordEnds, n);
  // The last path and record end where their sections do (an index of no lines has empty ones).
  const last = (ends: Uint32Array) => (n === 0 ? 0 : ends[n - 1]);
  if (last(pathEnds) !== layout.paths || last(recordEnds) !== layout.records) return undefined;
  const parts = new Uint8Array(head.buffer, at.parts, n);
  const paths = head.subarray(at.paths, at.records);
  // Where the path or record of a line starts and ends in its section. The offsets are checked as
  // they are used, not all at open, which would be a pass over every line: one that is empty or reads
  // outside its section is not what was written.
  const from = (ends: Uint32Array, total: number, line: number) => {
    const start = line === 0 ? 0 : ends[line - 1];
    if (!(start < ends[line] && ends[line] <= total)) throw damagedIndex(file);
    return start;
  };
  // ASCII paths, as nearly all are, are sliced from one string; others are decoded one by one.
  const pathsText = isAscii(paths) ? paths.toString('latin1') : undefined;
  const pathAt = pathsText
    ? (line: number) => pathsText.slice(from(pathEnds, layout.paths, line), pathEnds[line])
    : (line: number) => paths.toString('utf8', from(pathEnds, layout.paths, line), pathEnds[line]);

  let open = true;
  let singleReads = 0;
  // The records once read whole: one string when in ASCII, as they always are written, else their bytes.
  let recordsText: string | undefined;
  let records: Buffer | undefined;
  const readWhole = (bytes: Buffer) => {
    if (isAscii(bytes)) recordsText = bytes.toString('latin1');
    else records = bytes;
    open = false;
    closing.unregister(index);
    closeSync(fd);
  };
  const index: ParsedIndex = {
    header,
    format: INDEX_FORMAT,
    length,
    lines: n,
    parts,
    inPathOrder: true,
    lineOf: lineFinder(n, pathAt, true),
    pathAt,
    recordOf(line) {
      if (open && ++singleReads > SINGLE_READS) index.readAll();
      const start = from(recordEnds, layout.records, line);
      if (recordsText !== undefined) return checked(file, recordsText, start, recordEnds[line], parts[line]);
      const bytes = records ? records.subarray(start, recordEnds[line]) : readAt(file, fd, at.records + start, recordEnds[line] - start);
      const text = textOf(bytes);
      return checked(file, text, 0, text.length, parts[line]);
    },
    readAll() {
      if (open) readWhole(readAt(file, fd, at.records, layout.records));
    },
  };
  closing.register(index, fd, index);
  // A small index was read whole with its header.
  if (first.length === length) readWhole(first.subarray(at.records));
  return index;
}

/**
 * The record from `start` to `end` of `text`, as the caller decodes it: one that does not start with
 * its line's parts and end at its newline is not the record written there, and is never decoded.
 */
function checked(file: string, text: string, start: number, end: number, parts: number): [string, number] {
  if (text.charCodeAt(start) !== 48 + parts || text.indexOf('\n', start) !== end - 1) throw damagedIndex(file);
  return [text, start];
}

/** The file of an index no longer used is closed once the index is collected; reading the records whole closes it at once. */
const closing = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
});

function readAt(file: string, fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  readInto(file, fd, bytes, 0, length, position);
  return bytes;
}

/** Fills `length` bytes of `bytes` from `offset` with the file's from `position`. */
function readInto(file: string, fd: number, bytes: Buffer, offset: number, length: number, position: number): void {
  for (let done = 0; done < length;) {
    let read: number;
    try {
      read = readSync(fd, bytes, offset + done, length - done, position + done);
    } catch (error) {
      throw unreadable(file, error);
    }
    // Shorter than when it was opened: changed in place, which lode never does.
    if (read === 0) throw damagedIndex(file);
    done += read;
  }
}

function unreadable(file: string, error: unknown): CliError {
  return new CliError(`Could not read the workspace's records in ${file}: ${(error as Error).message}. Run the command again.`, {
    code: 'index_unreadable',
  });
}

export function damagedIndex(file: string): CliError {
  return new CliError(
    `The workspace's records in ${file} are damaged. Remove that file and run the command again: every file is then hashed again and compared in full.`,
    { code: 'index_damaged' },
  );
}

/** Text in ASCII, as nearly every index is, is made a string byte for byte, several times faster than decoding UTF-8 that it also is. */
export function textOf(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}
