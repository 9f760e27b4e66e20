import { randomUUID } from 'node:crypto';
import { appendFile, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  comparePaths,
  indexBytes,
  INDEX_FORMAT,
  localAt,
  localStatAt,
  LOCAL,
  logLine,
  parseLog,
  recordFields,
  recordText,
  REMOTE,
  remoteAt,
  SYNCED,
  syncedAt,
  syncedIsAt,
  syncedVersionAt,
  unchangedAtTipAt,
  type CachedDigest,
  type Change,
  type ParsedIndex,
  type RemoteFile,
  type RemoteScope,
  type SyncedFile,
} from './index-format.ts';
import { CliError } from './failure.ts';
import { damagedIndex, readIndex, textOf } from './index-file.ts';
import { writeWholeFile } from './json-file.ts';

/** A file as the hash cache last saw it. */
export interface LocalStat {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Keyed values the workspace keeps: what its callers read and change, whatever the file holds. */
export interface Table<V> {
  get(key: string): V | undefined;
  has(key: string): boolean;
  set(key: string, value: V): void;
  delete(key: string): void;
  /** The keys as of the call: the table may change while they are gone through. */
  keys(): string[];
  readonly size: number;
}

export type ReadonlyTable<V> = Pick<Table<V>, 'get' | 'has' | 'keys' | 'size'>;

/**
 * The log is folded into a new index once it is longer than this share of the index, and than
 * MIN_LOG: a small workspace's log stays a log for a while, as cheap to replay as to rewrite.
 */
const COMPACT_SHARE = 4;
const MIN_LOG = 64 * 1024;

/**
 * The workspace's per-path records (index-format.ts): read from `.lode/index` and the changes
 * appended to `.lode/index.log` since. A change is appended as a line, so that a push of a few edits
 * writes a few lines; the log is folded into a new index once it grows past a share of it, or when
 * a whole record is replaced (a full comparison's tree). Unchanged paths stay undecoded in the
 * index file; a path read or changed is decoded into the overlay of its part.
 */
export class WorkspaceIndex {
  readonly #file: string;
  readonly #logFile: string;
  #base: ParsedIndex | undefined;
  #mixedCaseRemote: Map<string, number> | undefined;
  #id: string;
  #scope: RemoteScope | null;
  /** Whether the remote parts of the index file still hold (false once the tree is replaced whole). */
  #baseRemote = true;
  /** The log's length and the index's: the log is folded in past a share of the index. */
  #logLength: number;
  #indexLength: number;
  #pending: Change[] = [];
  /** Rewrite the index at the next save: none on disk can be appended to, or a record was replaced whole. */
  #rewrite: boolean;

  readonly local: Table<CachedDigest>;
  readonly synced: Table<SyncedFile>;
  readonly remote: Table<RemoteFile>;

  private constructor(dir: string, base: ParsedIndex | undefined, logLength: number) {
    this.#file = path.join(dir, 'index');
    this.#logFile = path.join(dir, 'index.log');
    this.#base = base;
    this.#id = base?.header.id ?? randomUUID();
    this.#scope = base?.header.remote ?? null;
    this.#logLength = logLength;
    this.#indexLength = base?.length ?? 0;
    // An index of an older format is written in this one at the next save.
    this.#rewrite = base === undefined || base.format !== INDEX_FORMAT;
    this.local = this.#table<CachedDigest>(
      'local',
      LOCAL,
      (key) => this.#lineOf(key),
      (_, text, start) => localAt(text, start),
    );
    this.synced = this.#table<SyncedFile>(
      'synced',
      SYNCED,
      (key) => this.#lineOf(key),
      (_, text, start) => syncedAt(text, start),
    );
    this.remote = this.#table<RemoteFile>(
      'remote',
      REMOTE,
      (key) => (this.#baseRemote ? this.#remoteLine(key) : undefined),
      (line, text, start) => remoteAt((this.#base as ParsedIndex).pathAt(line), text, start),
    );
  }

  /** The records in `dir` (`.lode`); empty when there are none, or none this code can read: the next status then compares in full. */
  static async load(dir: string): Promise<WorkspaceIndex> {
    const base = readIndex(path.join(dir, 'index'));
    const log = base ? await readText(path.join(dir, 'index.log')) : '';
    const index = new WorkspaceIndex(dir, base, log.length);
    if (base) for (const change of parseLog(log, base.header.id)) index.#apply(change);
    return index;
  }

  /** A new, empty record, written at the next save. */
  static empty(dir: string): WorkspaceIndex {
    return new WorkspaceIndex(dir, undefined, 0);
  }

  get scope(): RemoteScope | null {
    return this.#scope;
  }

  /** Records where the remote parts stand: after a catch-up or the workspace's own commit. */
  setScope(scope: RemoteScope | null): void {
    this.#change({ kind: 'scope', value: scope });
  }

  /** Replaces the remote record whole: the index is rewritten at the next save. */
  replaceRemote(scope: RemoteScope, files: Iterable<RemoteFile>): void {
    this.#baseRemote = false;
    this.#overlays.remote.clear();
    this.#counts.remote = 0;
    for (const file of files) this.#put('remote', file[0].toLowerCase(), file);
    this.#scope = scope;
    this.#rewrite = true;
  }

  /** The version `path` was last synced at: its `baseVersion`, read without decoding the rest. */
  syncedVersion(path: string): number | undefined {
    const over = this.#overlays.synced.get(path);
    if (over !== undefined) return over?.version;
    const line = this.#baseLine(path, SYNCED);
    return line === undefined ? undefined : syncedVersionAt(...this.#base!.recordOf(line));
  }

  /** Whether `path` is recorded as synced at exactly `synced`, compared in place. */
  syncedIs(path: string, synced: SyncedFile): boolean {
    const over = this.#overlays.synced.get(path);
    if (over !== undefined) return over !== null && over.fileId === synced.fileId && over.version === synced.version && over.sha256 === synced.sha256;
    const line = this.#baseLine(path, SYNCED);
    return line !== undefined && syncedIsAt(...this.#base!.recordOf(line), synced);
  }

  /** How many lines the index file holds: the bound of the line numbers unchangedAtTip gives. */
  get lineCount(): number {
    return this.#base?.lines ?? 0;
  }

  /**
   * For each file asked about, the line of the index file saying that it is as this workspace last
   * synced it at the branch's tip (index-format.ts, unchangedAtTipAt), none of its records changed
   * since: such a file is up to date, and neither its digest nor the tip is decoded. -1 for any other
   * file. Paths asked in path order (the walk's) are found by moving along the lines, which are in
   * that order too, not by a lookup each.
   */
  unchangedAtTip(multipartThreshold: number): (path: string, size: number, mtimeMs: number) => number {
    const base = this.#base;
    if (!base || !this.#baseRemote) return () => -1;
    let next = 0;
    // The path on line `next`, made once however many paths are asked before it is passed.
    let nextPath: string | undefined;
    let last: string | undefined;
    const lineOf = (path: string): number | undefined => {
      if (!base.inPathOrder || (last !== undefined && !(last < path))) return base.lineOf(path);
      last = path;
      while (next < base.lines && (nextPath ??= base.pathAt(next)) < path) {
        next += 1;
        nextPath = undefined;
      }
      return next < base.lines && (nextPath ??= base.pathAt(next)) === path ? next : undefined;
    };
    return (path, size, mtimeMs) => {
      const line = lineOf(path);
      if (line === undefined || base.parts[line] !== (LOCAL | SYNCED | REMOTE)) return -1;
      // The remote part on a path's line is that of the path's own key: one per key, on its file's line.
      const { local, synced, remote } = this.#overlays;
      if (local.has(path) || synced.has(path) || (remote.size > 0 && remote.has(path.toLowerCase()))) return -1;
      return unchangedAtTipAt(...base.recordOf(line), size, mtimeMs, multipartThreshold) ? line : -1;
    };
  }

  /**
   * Every path with a local digest (the hash cache: the files the last listing found), with the size
   * and mtime it was made at, in path order; but those on lines flagged in `skip`, when given.
   */
  localListing(skip?: Uint8Array): LocalStat[] {
    const overlay = this.#overlays.local;
    const base = this.#base;
    const listed = base
      ? this.localOnLines((line) => !skip?.[line] && (base.parts[line] & LOCAL) !== 0 && (overlay.size === 0 || !overlay.has(base.pathAt(line))))
      : [];
    let added = false;
    for (const [p, digest] of overlay) {
      if (digest === null) continue;
      listed.push({ path: p, size: digest.size, mtimeMs: digest.mtimeMs });
      added = true;
    }
    return added ? listed.sort((a, b) => comparePaths(a.path, b.path)) : listed;
  }

  /** Names this writing of the index: a rewrite (compaction) gives it another. */
  get id(): string {
    return this.#id;
  }

  /** Names this state of the records: the index's writing and the length of its log. */
  get stamp(): string {
    return `${this.#id}:${this.#logLength}`;
  }

  /**
   * The lines of the index file holding all three parts of a path, but those of `paths` and of
   * paths with a key (lower case) in `keys`, none of their records changed since the index was read:
   * of these, the lines a status read as unchanged at the tip still read so, as long as neither the
   * file nor the records changed (monitored-listing.ts). Flagged, and counted in the same pass.
   */
  linesWithAllParts(paths: Iterable<string>, keys: ReadonlySet<string>): { lines: Uint8Array; count: number } {
    const base = this.#base;
    const lines = new Uint8Array(this.lineCount);
    if (!base || !this.#baseRemote) return { lines, count: 0 };
    let count = 0;
    for (let line = 0; line < base.parts.length; line += 1) {
      if (base.parts[line] === (LOCAL | SYNCED | REMOTE)) {
        lines[line] = 1;
        count += 1;
      }
    }
    const overlays = this.#overlays;
    // Those named, and those whose records changed since the index was read (clearChanged).
    count -= this.#clear(lines, [paths, overlays.local.keys(), overlays.synced.keys()], [keys, overlays.remote.keys()]).length;
    return { lines, count };
  }

  /** Clears the flags of lines whose records changed since the index was read; answers those lines. */
  clearChanged(flags: Uint8Array): number[] {
    const overlays = this.#overlays;
    return this.#clear(flags, [overlays.local.keys(), overlays.synced.keys()], [overlays.remote.keys()]);
  }

  /** Clears the flags of the lines of `paths`, and of the lines holding the remote parts of `keys`; answers the lines it cleared. */
  #clear(flags: Uint8Array, paths: Iterable<string>[], keys: Iterable<string>[]): number[] {
    const base = this.#base;
    const cleared: number[] = [];
    if (!base) return cleared;
    const clear = (line: number | undefined) => {
      if (line !== undefined && flags[line]) {
        flags[line] = 0;
        cleared.push(line);
      }
    };
    for (const some of paths) for (const p of some) clear(base.lineOf(p));
    // A remote part sits on the line of its file's path, whose key it is: found by key, without a pass over every line.
    for (const some of keys) for (const key of some) clear(this.#remoteLine(key));
    return cleared;
  }

  /** The paths of the index's lines `select` picks (each with a local digest), with the size and mtime of their digests, in path order. */
  localOnLines(select: (line: number) => boolean): LocalStat[] {
    const base = this.#base;
    const listed: LocalStat[] = [];
    if (!base) return listed;
    for (let line = 0; line < base.lines; line += 1) if (select(line)) listed.push({ path: base.pathAt(line), ...localStatAt(...base.recordOf(line)) });
    return base.inPathOrder ? listed : listed.sort((a, b) => comparePaths(a.path, b.path));
  }

  /** The remote table's keys but those whose part sits on a line flagged in `skip` (by line of the index file). */
  remoteKeysBeside(skip: Uint8Array): string[] {
    const base = this.#base;
    const overlay = this.#overlays.remote;
    const keys: string[] = [];
    if (base && this.#baseRemote) {
      for (let line = 0; line < base.lines; line += 1) {
        if (!(base.parts[line] & REMOTE) || skip[line]) continue;
        const key = base.pathAt(line).toLowerCase();
        if (!overlay.has(key)) keys.push(key);
      }
    }
    for (const [key, value] of overlay) if (value !== null) keys.push(key);
    return keys;
  }

  /** The line of the index file holding `part` of `path`, if it does. */
  #baseLine(path: string, part: number): number | undefined {
    const line = this.#base?.lineOf(path);
    return line !== undefined && this.#base!.parts[line] & part ? line : undefined;
  }

  /** Whether anything changed since the last save. */
  get changed(): boolean {
    return this.#pending.length > 0 || this.#rewrite;
  }

  /**
   * Appends the changes to the log in one write (O_APPEND: another lode process's lines are never
   * overwritten), or rewrites the index when it must or the log has grown past its share.
   */
  async save(): Promise<void> {
    if (!this.changed) return;
    const text = this.#pending.map((change) => logLine(this.#id, change)).join('');
    const logLength = this.#logLength + text.length;
    if (this.#rewrite || logLength > Math.max(this.#indexLength / COMPACT_SHARE, MIN_LOG)) {
      await this.#compact();
      return;
    }
    this.#pending = [];
    await appendFile(this.#logFile, text);
    this.#logLength = logLength;
  }

  /**
   * A new index with every path's records under a new id, made durable before it replaces the old
   * one; only then the log goes. A crash in between leaves the new index with a log of the old id,
   * which is skipped.
   */
  async #compact(): Promise<void> {
    const id = randomUUID();
    const base = this.#base;
    // Read whole now: every record is copied or replaced, and the file is replaced under it.
    base?.readAll();
    // Every line's path is made once here, and found again by this map rather than by a search.
    const baseLines = new Map<string, number>();
    if (base) for (let line = 0; line < base.lines; line += 1) baseLines.set(base.pathAt(line), line);
    const paths = new Set<string>(baseLines.keys());
    for (const overlay of [this.#overlays.local, this.#overlays.synced]) for (const p of overlay.keys()) paths.add(p);
    // A remote file sits on the line of its own path, which its key finds.
    const remoteByPath = new Map<string, RemoteFile>();
    let mixedCaseRemote = false;
    for (const key of this.remote.keys()) {
      const file = this.remote.get(key) as RemoteFile;
      remoteByPath.set(file[0], file);
      paths.add(file[0]);
      mixedCaseRemote ||= file[0] !== key;
    }
    const kept: string[] = [];
    const records: string[] = [];
    for (const p of [...paths].sort()) {
      const line = baseLines.get(p);
      const untouched =
        base !== undefined &&
        line !== undefined &&
        this.#baseRemote &&
        !this.#overlays.local.has(p) &&
        !this.#overlays.synced.has(p) &&
        !this.#overlays.remote.has(p.toLowerCase()) &&
        (base.parts[line] & REMOTE) === (remoteByPath.has(p) ? REMOTE : 0);
      const record = untouched
        ? recordText(...base.recordOf(line))
        : recordFields({ local: this.local.get(p), synced: this.synced.get(p), remote: remoteByPath.get(p) });
      if (record === '') continue;
      kept.push(p);
      records.push(record);
    }
    const bytes = indexBytes({ id, remote: this.#scope, mixedCaseRemote }, kept, records);
    await writeWholeFile(this.#file, bytes, { durable: true });
    await rm(this.#logFile, { force: true });
    this.#id = id;
    this.#pending = [];
    this.#logLength = 0;
    this.#rewrite = false;
    // What is in memory stays: the old records, read whole, with the overlays over them are what the new file holds.
    this.#indexLength = bytes.length;
  }

  readonly #overlays = {
    local: new Map<string, CachedDigest | null>(),
    synced: new Map<string, SyncedFile | null>(),
    remote: new Map<string, RemoteFile | null>(),
  };

  readonly #counts = { local: 0, synced: 0, remote: 0 };

  #lineOf(key: string): number | undefined {
    return this.#base?.lineOf(key);
  }

  /**
   * The line holding the remote part of path key `key`. A remote file whose path is its own key (in
   * lower case, as nearly every path is) sits on the line `key` names; only the others need a map
   * from key to line, which saves one map entry per remote file.
   */
  #remoteLine(key: string): number | undefined {
    const base = this.#base;
    if (!base) return undefined;
    // The line whose path is the key itself, in lower case, holds that key's remote part if any.
    const own = base.lineOf(key);
    if (own !== undefined && base.parts[own] & REMOTE && key.toLowerCase() === key) return own;
    return base.header.mixedCaseRemote === false ? undefined : this.#mixedCaseRemoteLines().get(key);
  }

  /** The lines of remote parts whose path is not its key, by key. Made the first time one is asked for. */
  #mixedCaseRemoteLines(): Map<string, number> {
    if (this.#mixedCaseRemote) return this.#mixedCaseRemote;
    const base = this.#base as ParsedIndex;
    const byKey = new Map<string, number>();
    for (let line = 0; line < base.lines; line += 1) {
      if (!(base.parts[line] & REMOTE)) continue;
      const path = base.pathAt(line);
      const key = path.toLowerCase();
      if (key !== path) byKey.set(key, line);
    }
    this.#mixedCaseRemote = byKey;
    return byKey;
  }

  #apply(change: Change): void {
    if (change.kind === 'scope') this.#scope = change.value;
    else if (change.kind === 'remote') this.#put('remote', change.key, change.value);
    else this.#put(change.kind, change.path, change.value);
  }

  #change(change: Change): void {
    this.#apply(change);
    this.#pending.push(change);
  }

  #put<K extends 'local' | 'synced' | 'remote'>(kind: K, key: string, value: unknown): void {
    const table = this[kind] as Table<unknown>;
    const had = table.has(key);
    (this.#overlays[kind] as Map<string, unknown>).set(key, value);
    this.#counts[kind] += (value === null ? 0 : 1) - (had ? 1 : 0);
  }

  #table<V>(
    kind: 'local' | 'synced' | 'remote',
    part: number,
    lineOf: (key: string) => number | undefined,
    decode: (line: number, text: string, start: number) => V,
  ): Table<V> {
    const overlay = this.#overlays[kind] as Map<string, V | null>;
    const inBase = (key: string): number | undefined => {
      const line = lineOf(key);
      return line !== undefined && (this.#base as ParsedIndex).parts[line] & part ? line : undefined;
    };
    const get = (key: string): V | undefined => {
      const over = overlay.get(key);
      if (over !== undefined) return over ?? undefined;
      const line = inBase(key);
      if (line === undefined) return undefined;
      try {
        return decode(line, ...(this.#base as ParsedIndex).recordOf(line));
      } catch (error) {
        // A record damaged inside, a field in the wrong place: the file is not what was written.
        throw error instanceof CliError ? error : damagedIndex(this.#file);
      }
    };
    const has = (key: string): boolean => {
      const over = overlay.get(key);
      return over !== undefined ? over !== null : inBase(key) !== undefined;
    };
    const baseKeys = (): Iterable<string> => {
      const base = this.#base;
      const keys: string[] = [];
      if (!base || (kind === 'remote' && !this.#baseRemote)) return keys;
      // A remote part is keyed by its path in lower case.
      for (let line = 0; line < base.lines; line += 1)
        if (base.parts[line] & part) keys.push(kind === 'remote' ? base.pathAt(line).toLowerCase() : base.pathAt(line));
      return keys;
    };
    // Changes keep the count beside the base's, which is counted when first asked for: most commands never ask.
    const counts = this.#counts;
    let inBaseCount: number | undefined;
    const baseCount = (): number => {
      if (kind === 'remote' && !this.#baseRemote) return 0;
      if (inBaseCount === undefined) {
        const base = this.#base;
        inBaseCount = 0;
        if (base) for (let line = 0; line < base.parts.length; line += 1) if (base.parts[line] & part) inBaseCount += 1;
      }
      return inBaseCount;
    };
    return {
      get,
      has,
      set: (key, value) => this.#change(changeOf(kind, key, value)),
      delete: (key) => {
        if (has(key)) this.#change(changeOf(kind, key, null));
      },
      keys() {
        const keys: string[] = [];
        for (const key of baseKeys()) if (!overlay.has(key)) keys.push(key);
        for (const [key, value] of overlay) if (value !== null) keys.push(key);
        return keys;
      },
      get size() {
        return baseCount() + counts[kind];
      },
    };
  }
}

/** A file's text, '' when it cannot be read. */
async function readText(file: string): Promise<string> {
  const bytes = await readFile(file).catch(() => undefined);
  return bytes ? textOf(bytes) : '';
}

function changeOf(kind: 'local' | 'synced' | 'remote', key: string, value: unknown): Change {
  if (kind === 'remote') return { kind, key, value: value as RemoteFile | null };
  if (kind === 'local') return { kind, path: key, value: value as CachedDigest | null };
  return { kind, path: key, value: value as SyncedFile | null };
}
