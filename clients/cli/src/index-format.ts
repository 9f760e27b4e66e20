import { constants } from 'node:buffer';
import { crc32 } from 'node:zlib';
import { movesInParts, type ContentDigest } from '@lode/sdk';

/**
 * The format of `.lode/index` and `.lode/index.log`, without I/O (index-file.ts reads the index,
 * workspace-index.ts writes both). For each path, the index holds what the workspace knows of it in
 * one record of tab-separated fields: its local digest (the hash cache), the version it last synced,
 * and the branch tip's file (the record of the remote tree). Fields are decoded when asked for.
 *
 *   parts <TAB> size <TAB> mtimeMs <TAB> sha256 <TAB> md5 <TAB> partDigests
 *         <TAB> syncedFileId <TAB> syncedVersion <TAB> syncedSha256
 *         <TAB> remoteFileId <TAB> remoteVersion <TAB> remoteSha256 <TAB> remoteSize <TAB> remoteCommitSeq <LF>
 *
 * `parts` is a digit, the sum of 1 (local digest), 2 (synced) and 4 (remote): absent parts' fields
 * are empty. A sha256 of `=` is the local digest's, a remote fileId of `=` the synced one's: they are
 * nearly always equal, and that halves the record. The remote part sits on the line of the remote
 * file's own path; it is looked up by path key (lower case), as the project names files.
 *
 * The file is a header line, then sections a command reads only as far as it needs:
 *
 *   lode-index <TAB> 2 <TAB> {"id":…,"remote":{server,projectId,branch,generation,seq}|null,
 *                             "mixedCaseRemote":…,"layout":{"lines":n,"paths":bytes,"records":bytes}} <LF>
 *   parts       n bytes: each line's parts
 *   (zeros up to a multiple of 4 bytes from the file's start)
 *   pathEnds    n × uint32, little-endian: where each line's path ends in the paths section
 *   recordEnds  n × uint32, little-endian: where each line's record ends in the records section
 *   paths       the paths in UTF-8, back to back, in code-unit order
 *   records     the records, in the same order
 *
 * A section is written from one string, so it holds at most what a string can (512 MiB in Node):
 * the records of some 3 million files.
 *
 * The records are most of the file, and a status with the file monitor on decodes few of them: it
 * reads everything before them, and the records of the lines it compares one by one, each where it lies.
 *
 * The log holds changes made since the index was written, one per line, each starting with the id
 * of the index it applies to and ending with a CRC-32 of the rest: a line torn by a crash, or one
 * written against an index since rewritten, is skipped, never misread.
 */

export const INDEX_FORMAT = 2;
const MAGIC = 'lode-index';

export const LOCAL = 1;
export const SYNCED = 2;
export const REMOTE = 4;

/** The version of a path this workspace last synced: its `baseVersion` next time. */
export interface SyncedFile {
  fileId: string;
  version: number;
  sha256: string;
}

/** A file's digest, valid while its size and mtime stay as recorded: an unchanged file is never hashed twice. */
export interface CachedDigest extends ContentDigest {
  mtimeMs: number;
}

/** A live file of the branch as the server last told this workspace: path, file id, version, SHA-256, size, commit. */
export type RemoteFile = [path: string, fileId: string, version: number, sha256: string, size: number, commitSeq: number];

/** Which server, project, branch and incarnation of it the remote parts describe, as of commit `seq`. */
export interface RemoteScope {
  server: string;
  projectId: string;
  branch: string;
  generation: string;
  seq: number;
}

export interface IndexHeader {
  /** Names this writing of the index: log lines carry it, so none outlives a rewrite. */
  id: string;
  remote: RemoteScope | null;
  /**
   * Whether a remote part sits on a path other than its key (a path not in lower case): false lets a
   * key without a line of its own be known absent without going through every line. Unknown when absent.
   */
  mixedCaseRemote?: boolean;
}

/** Field numbers of a record. */
const F = {
  parts: 0,
  size: 1,
  mtime: 2,
  sha: 3,
  md5: 4,
  partDigests: 5,
  sFileId: 6,
  sVersion: 7,
  sSha: 8,
  rFileId: 9,
  rVersion: 10,
  rSha: 11,
  rSize: 12,
  rSeq: 13,
};
const FIELDS = 14;

/** An index as read: its header, and each line's path and record, read when asked for. */
export interface ParsedIndex {
  header: IndexHeader;
  /** The format it was written in: one older than INDEX_FORMAT is written anew at the next save. */
  format: number;
  /** Its length in bytes: the log is folded into a new index past a share of it. */
  length: number;
  /** How many lines there are. */
  lines: number;
  /** Each line's parts (LOCAL | SYNCED | REMOTE). */
  parts: Uint8Array;
  /** Whether the lines are in path order (code units), as every index is written: then paths asked in that order are found by walking them. */
  inPathOrder: boolean;
  /** The line of `path`, if it has one: a binary search when the lines are in path order, else a map made when first asked. */
  lineOf(path: string): number | undefined;
  /** The path on `line`, made when asked: a status names few of the index's lines. */
  pathAt(line: number): string;
  /** A text holding the record of `line`, and where the record starts in it; it ends at its newline. */
  recordOf(line: number): [text: string, start: number];
  /** Reads what of the file is still unread: it may then be replaced, and every record is read from memory. */
  readAll(): void;
}

/** Paths in code-unit order, the order the server lists them in (not the locale's), and the index's lines are in. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Finds lines by path: by a binary search when they are in path order, else by a map made when first asked. */
export function lineFinder(lines: number, pathAt: (line: number) => string, inPathOrder: boolean): (path: string) => number | undefined {
  if (inPathOrder) return (p) => searchSorted(lines, pathAt, p);
  let byPath: Map<string, number> | undefined;
  return (p) => {
    if (!byPath) {
      byPath = new Map<string, number>();
      for (let line = 0; line < lines; line += 1) byPath.set(pathAt(line), line);
    }
    return byPath.get(p);
  };
}

/** The line of `p` among `count` lines whose paths (`pathAt`) are in code-unit order, no repeats, if it is there. */
function searchSorted(count: number, pathAt: (line: number) => string, p: string): number | undefined {
  let low = 0;
  let high = count - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = pathAt(middle);
    if (at === p) return middle;
    if (at < p) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/** Where a file's sections are laid out (layout), in number of lines and bytes. */
export interface IndexLayout {
  lines: number;
  paths: number;
  records: number;
}

/** The header line's format, header and layout; undefined when it is not an index's header line. */
export function parseHeaderLine(line: string): { format: number; header: IndexHeader; layout?: IndexLayout } | undefined {
  const [magic, format, json] = line.split('\t');
  if (magic !== MAGIC || json === undefined || !/^[1-9][0-9]*$/.test(format)) return undefined;
  try {
    const { layout, ...header } = JSON.parse(json) as Partial<IndexHeader> & { layout?: Partial<IndexLayout> };
    if (typeof header.id !== 'string' || (header.remote !== null && !validScope(header.remote))) return undefined;
    if (header.mixedCaseRemote !== undefined && typeof header.mixedCaseRemote !== 'boolean') return undefined;
    if (layout !== undefined && !validLayout(layout)) return undefined;
    return { format: Number(format), header: header as IndexHeader, layout };
  } catch {
    return undefined;
  }
}

/** A section's size: written from one string, it is no longer than a string can be. */
const size = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= constants.MAX_STRING_LENGTH;

/**
 * Whether the writer could have laid the sections out so: each path and record takes a byte or more
 * (a record two), and no section is longer than a string. A layout past these would have a command
 * read gigabytes at open before finding the file damaged.
 */
function validLayout(layout: Partial<IndexLayout>): layout is IndexLayout {
  if (typeof layout !== 'object' || layout === null || !size(layout.lines) || !size(layout.paths) || !size(layout.records)) return false;
  const { lines, paths, records } = layout as IndexLayout;
  return lines <= paths && 2 * lines <= records;
}

/** Where each section of a file whose header line is `headerBytes` long starts, and where the file ends. */
export function sectionsOf(headerBytes: number, layout: IndexLayout) {
  const n = layout.lines;
  const pathEnds = Math.ceil((headerBytes + n) / 4) * 4;
  const recordEnds = pathEnds + 4 * n;
  const paths = recordEnds + 4 * n;
  const records = paths + layout.paths;
  return { parts: headerBytes, pathEnds, recordEnds, paths, records, end: records + layout.records };
}

/**
 * The index file of `header` and its lines: `paths` in code-unit order, no repeats, and `records[i]`
 * the record of `paths[i]` through its newline.
 */
export function indexBytes(header: IndexHeader, paths: readonly string[], records: readonly string[]): Buffer {
  const pathsText = paths.join('');
  const recordsText = records.join('');
  const layout: IndexLayout = { lines: paths.length, paths: sectionBytes(paths, pathsText), records: sectionBytes(records, recordsText) };
  const head = Buffer.from(`${MAGIC}\t${INDEX_FORMAT}\t${JSON.stringify({ ...header, layout })}\n`);
  const at = sectionsOf(head.length, layout);
  const file = Buffer.alloc(at.end);
  head.copy(file);
  for (let line = 0; line < records.length; line += 1) file[at.parts + line] = records[line].charCodeAt(0) - 48;
  writeSection(file, at.pathEnds, at.paths, paths, pathsText, layout.paths);
  writeSection(file, at.recordEnds, at.records, records, recordsText, layout.records);
  return file;
}

/** A section's size in bytes: its text's length when all ASCII, as nearly always, else the sum of its pieces encoded one by one. */
function sectionBytes(pieces: readonly string[], text: string): number {
  const bytes = Buffer.byteLength(text);
  return bytes === text.length ? bytes : pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
}

/**
 * The pieces from `at`, and the end of each as uint32s from `endsAt`. Pieces not in ASCII are encoded
 * one by one: a lone surrogate ending one would pair with one starting the next in a joined text.
 */
function writeSection(file: Buffer, endsAt: number, at: number, pieces: readonly string[], text: string, bytes: number): void {
  const ascii = bytes === text.length;
  if (ascii) file.write(text, at, 'latin1');
  let end = 0;
  for (let i = 0; i < pieces.length; i += 1) {
    end += ascii ? pieces[i].length : file.write(pieces[i], at + end, 'utf8');
    file.writeUInt32LE(end, endsAt + 4 * i);
  }
}

export function validScope(scope: unknown): scope is RemoteScope {
  const s = scope as Partial<RemoteScope> | null | undefined;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.server === 'string' &&
    typeof s.projectId === 'string' &&
    typeof s.branch === 'string' &&
    typeof s.generation === 'string' &&
    Number.isSafeInteger(s.seq) &&
    (s.seq as number) >= 0
  );
}

/**
 * Where each field of the line being decoded ends (its tab, or the newline): found once per
 * decoding, so that only the fields asked for become strings.
 */
const ends = new Int32Array(FIELDS);

function locate(text: string, start: number, fields: number): void {
  let at = start;
  for (let i = 0; i < fields; i += 1) {
    const tab = text.indexOf(i === FIELDS - 1 ? '\n' : '\t', at);
    ends[i] = tab;
    at = tab + 1;
  }
}

const begin = (start: number, i: number) => (i === 0 ? start : ends[i - 1] + 1);
const field = (text: string, start: number, i: number) => text.slice(begin(start, i), ends[i]);
const isEmpty = (start: number, i: number) => ends[i] === begin(start, i);
const isSame = (text: string, start: number, i: number) => ends[i] - begin(start, i) === 1 && text.charCodeAt(ends[i] - 1) === 61;

/** A whole number field, read in place. */
function integer(text: string, start: number, i: number): number {
  let n = 0;
  for (let at = begin(start, i); at < ends[i]; at += 1) n = n * 10 + text.charCodeAt(at) - 48;
  return n;
}

/** The local digest of the line whose fields start at `start`. */
export function localAt(text: string, start: number): CachedDigest {
  locate(text, start, F.partDigests + 1);
  const digest: CachedDigest = { size: integer(text, start, F.size), sha256: field(text, start, F.sha), mtimeMs: Number(field(text, start, F.mtime)) };
  if (!isEmpty(start, F.md5)) digest.md5 = field(text, start, F.md5);
  if (!isEmpty(start, F.partDigests)) digest.parts = JSON.parse(field(text, start, F.partDigests)) as CachedDigest['parts'];
  return digest;
}

/** The size and mtime the line's local digest was made at. */
export function localStatAt(text: string, start: number): { size: number; mtimeMs: number } {
  locate(text, start, F.mtime + 1);
  return { size: integer(text, start, F.size), mtimeMs: Number(field(text, start, F.mtime)) };
}

export function syncedAt(text: string, start: number): SyncedFile {
  locate(text, start, F.sSha + 1);
  const sha256 = field(text, start, isSame(text, start, F.sSha) ? F.sha : F.sSha);
  return { fileId: field(text, start, F.sFileId), version: integer(text, start, F.sVersion), sha256 };
}

/** Whether a field is `value`, compared in place. */
const fieldIs = (text: string, start: number, i: number, value: string) =>
  ends[i] - begin(start, i) === value.length && text.startsWith(value, begin(start, i));

/** The synced version's number alone: what a status sends as `baseVersion`. */
export function syncedVersionAt(text: string, start: number): number {
  locate(text, start, F.sVersion + 1);
  return integer(text, start, F.sVersion);
}

/** Whether the line's synced version is `synced`, compared in place. */
export function syncedIsAt(text: string, start: number, synced: SyncedFile): boolean {
  locate(text, start, F.sSha + 1);
  return (
    fieldIs(text, start, F.sFileId, synced.fileId) &&
    integer(text, start, F.sVersion) === synced.version &&
    fieldIs(text, start, isSame(text, start, F.sSha) ? F.sha : F.sSha, synced.sha256)
  );
}

/**
 * Whether the line says its file is as this workspace last synced it at the branch's tip: the cached
 * digest is of this size and mtime and serves the single-request upload a file below
 * `multipartThreshold` gets (scan.ts, digestFits), the synced version is the tip's, and the tip's
 * content and file are the synced ones. Compared in place: the `=` fields say the SHA-256s and file
 * ids are equal, so nothing is decoded.
 */
export function unchangedAtTipAt(text: string, start: number, size: number, mtimeMs: number, multipartThreshold: number): boolean {
  locate(text, start, FIELDS);
  return (
    integer(text, start, F.size) === size &&
    fieldIs(text, start, F.mtime, String(mtimeMs)) &&
    !isEmpty(start, F.md5) &&
    isEmpty(start, F.partDigests) &&
    !movesInParts(size, multipartThreshold) &&
    isSame(text, start, F.sSha) &&
    isSame(text, start, F.rFileId) &&
    isSame(text, start, F.rSha) &&
    integer(text, start, F.sVersion) === integer(text, start, F.rVersion)
  );
}

export function remoteAt(path: string, text: string, start: number): RemoteFile {
  locate(text, start, FIELDS);
  const fileId = field(text, start, isSame(text, start, F.rFileId) ? F.sFileId : F.rFileId);
  const sha256 = field(text, start, isSame(text, start, F.rSha) ? F.sha : F.rSha);
  return [path, fileId, integer(text, start, F.rVersion), sha256, integer(text, start, F.rSize), integer(text, start, F.rSeq)];
}

/** The record starting at `start` of `text`, through its newline, as written. */
export function recordText(text: string, start: number): string {
  return text.slice(start, text.indexOf('\n', start) + 1);
}

/** What one path's line holds, decoded. */
export interface PathRecord {
  local?: CachedDigest;
  synced?: SyncedFile;
  remote?: RemoteFile;
}

/** One path's record through its newline, or '' when it holds nothing. */
export function recordFields(record: PathRecord): string {
  const { local, synced, remote } = record;
  const parts = (local ? LOCAL : 0) | (synced ? SYNCED : 0) | (remote ? REMOTE : 0);
  if (parts === 0) return '';
  const f = new Array<string>(FIELDS).fill('');
  f[F.parts] = String(parts);
  if (local) {
    f[F.size] = String(local.size);
    f[F.mtime] = String(local.mtimeMs);
    f[F.sha] = local.sha256;
    f[F.md5] = local.md5 ?? '';
    f[F.partDigests] = local.parts ? JSON.stringify({ partSize: local.parts.partSize, md5s: local.parts.md5s }) : '';
  }
  if (synced) {
    f[F.sFileId] = synced.fileId;
    f[F.sVersion] = String(synced.version);
    f[F.sSha] = local?.sha256 === synced.sha256 ? '=' : synced.sha256;
  }
  if (remote) {
    f[F.rFileId] = synced?.fileId === remote[1] ? '=' : remote[1];
    f[F.rVersion] = String(remote[2]);
    f[F.rSha] = local?.sha256 === remote[3] ? '=' : remote[3];
    f[F.rSize] = String(remote[4]);
    f[F.rSeq] = String(remote[5]);
  }
  return `${f.join('\t')}\n`;
}

/** A change, as the log holds it and replays it. */
export type Change =
  | { kind: 'local'; path: string; value: CachedDigest | null }
  | { kind: 'synced'; path: string; value: SyncedFile | null }
  | { kind: 'remote'; key: string; value: RemoteFile | null }
  | { kind: 'scope'; value: RemoteScope | null };

/** One log line: a newline first too, so that a line torn by a crash never runs into the next writer's. */
export function logLine(indexId: string, change: Change): string {
  const body = `${indexId}\t${JSON.stringify(changeFields(change))}`;
  return `\n${body}\t${crc32(body).toString(16)}\n`;
}

function changeFields(change: Change): unknown[] {
  switch (change.kind) {
    case 'local':
      return ['l', change.path, change.value];
    case 'synced':
      return ['s', change.path, change.value];
    case 'remote':
      return ['r', change.key, change.value];
    case 'scope':
      return ['t', change.value];
  }
}

/** The log's changes to the index `indexId`, in order: lines torn, damaged or of another index are skipped. */
export function parseLog(text: string, indexId: string): Change[] {
  const changes: Change[] = [];
  for (const line of text.split('\n')) {
    const crcTab = line.lastIndexOf('\t');
    const idTab = line.indexOf('\t');
    if (crcTab <= 0 || idTab === crcTab || line.slice(0, idTab) !== indexId) continue;
    const body = line.slice(0, crcTab);
    if (crc32(body).toString(16) !== line.slice(crcTab + 1)) continue;
    const change = parseChange(body.slice(idTab + 1));
    if (change) changes.push(change);
  }
  return changes;
}

function parseChange(json: string): Change | undefined {
  let fields: unknown[];
  try {
    fields = JSON.parse(json) as unknown[];
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields)) return undefined;
  const [kind, a, b] = fields;
  if (kind === 't') return { kind: 'scope', value: a === null || validScope(a) ? a : null };
  if (typeof a !== 'string') return undefined;
  if (kind === 'l') return { kind: 'local', path: a, value: b as CachedDigest | null };
  if (kind === 's') return { kind: 'synced', path: a, value: b as SyncedFile | null };
  if (kind === 'r') return { kind: 'remote', key: a, value: b as RemoteFile | null };
  return undefined;
}
