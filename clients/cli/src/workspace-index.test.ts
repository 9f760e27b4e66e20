import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INDEX_FORMAT, sectionsOf, type CachedDigest, type RemoteFile, type RemoteScope, type SyncedFile } from './index-format.ts';
import { WorkspaceIndex } from './workspace-index.ts';
import { STATE_DIR, Workspace } from './workspace.ts';

const sha = (c: string) => c.repeat(64);
const digest = (c: string, extra: Partial<CachedDigest> = {}): CachedDigest => ({
  size: 3,
  sha256: sha(c),
  md5: `md5${c}==`,
  mtimeMs: 1_700_000_000_123.5,
  ...extra,
});
const scope: RemoteScope = { server: 'http://lode', projectId: 'p1', branch: 'main', generation: 'g1', seq: 7 };

/** Every record of an index as plain values, to compare two of them. */
function contents(index: WorkspaceIndex) {
  const all = <V>(table: { keys(): string[]; get(key: string): V | undefined }) =>
    Object.fromEntries(
      table
        .keys()
        .sort()
        .map((k) => [k, table.get(k)]),
    );
  return { scope: index.scope, local: all(index.local), synced: all(index.synced), remote: all(index.remote) };
}

async function records(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'lode-index-'));
}

/**
 * An index of the first format, as lode wrote it before the current one: a header line, then a line
 * per path, the path (a JSON string when it holds a control character or starts with a quote), a
 * tab, and its record. What `written` below holds.
 */
const FIRST_FORMAT_LINES = [
  `"\\"quoted\\""\t1\t3\t1700000000123.5\t${sha('6')}\tmd56==\t\t\t\t\t\t\t\t\t`,
  `Big/b.mov\t1\t9\t5\t${sha('b')}\t\t{"partSize":4,"md5s":["x==","y==","z=="]}\t\t\t\t\t\t\t\t`,
  `Dir/Upper.TXT\t4\t\t\t\t\t\t\t\t\tf-u\t4\t${sha('f')}\t10\t7`,
  `a\t7\t3\t1700000000123.5\t${sha('0')}\tmd50==\t\tf-a\t2\t=\t=\t2\t=\t3\t6`,
  `a.b\t1\t3\t1700000000123.5\t${sha('2')}\tmd52==\t\t\t\t\t\t\t\t\t`,
  `a.txt\t1\t3\t1700000000123.5\t${sha('3')}\tmd53==\t\t\t\t\t\t\t\t\t`,
  `a/b\t1\t3\t1700000000123.5\t${sha('1')}\tmd51==\t\t\t\t\t\t\t\t\t`,
  `gone.txt\t2\t\t\t\t\t\tf-g\t1\t${sha('e')}\t\t\t\t\t`,
  `"new\\nline"\t1\t3\t1700000000123.5\t${sha('7')}\tmd57==\t\t\t\t\t\t\t\t\t`,
  `"tab\\there"\t1\t3\t1700000000123.5\t${sha('5')}\tmd55==\t\t\t\t\t\t\t\t\t`,
  `\u00e9/\u00fc.txt\t1\t3\t1700000000123.5\t${sha('8')}\tmd58==\t\t\t\t\t\t\t\t\t`,
];
const firstFormat = (lines: string[]) => [`lode-index\t1\t${JSON.stringify({ id: 'v1', remote: scope, mixedCaseRemote: true })}`, ...lines, ''].join('\n');

/** An index with a few paths of every kind, saved. */
async function sample(dir: string): Promise<WorkspaceIndex> {
  const index = WorkspaceIndex.empty(dir);
  index.local.set('a.txt', digest('a'));
  index.local.set('Big/b.mov', { size: 9, sha256: sha('b'), mtimeMs: 5, parts: { partSize: 4, md5s: ['x==', 'y==', 'z=='] } });
  index.local.set('tab\there', digest('c'));
  index.local.set('"quoted"', digest('d'));
  const synced: SyncedFile = { fileId: 'f-a', version: 2, sha256: sha('a') };
  index.synced.set('a.txt', synced);
  index.synced.set('gone.txt', { fileId: 'f-g', version: 1, sha256: sha('e') });
  const files: RemoteFile[] = [
    ['a.txt', 'f-a', 2, sha('a'), 3, 6],
    ['Dir/Upper.TXT', 'f-u', 4, sha('f'), 10, 7],
  ];
  index.replaceRemote(scope, files);
  await index.save();
  return index;
}

describe('the workspace index', () => {
  it('reads back what it wrote, path by path, names with tabs and quotes included', async () => {
    const dir = await records();
    const written = await sample(dir);
    const read = await WorkspaceIndex.load(dir);
    expect(contents(read)).toEqual(contents(written));
    expect(read.remote.get('dir/upper.txt')).toEqual(['Dir/Upper.TXT', 'f-u', 4, sha('f'), 10, 7]);
    expect(read.local.get('Big/b.mov')?.parts?.md5s).toEqual(['x==', 'y==', 'z==']);
    expect([read.local.size, read.synced.size, read.remote.size]).toEqual([4, 2, 2]);
    expect(read.changed).toBe(false);
  });

  it('reads an index of the first format, its lines in path order or not, and writes it anew in this one', async () => {
    const dir = await records();
    const written = WorkspaceIndex.empty(dir);
    for (const [i, p] of ['a', 'a/b', 'a.b', 'a.txt', 'Big/b.mov', 'tab\there', '"quoted"', 'new\nline', 'é/ü.txt'].entries())
      written.local.set(p, digest(String(i)));
    written.local.set('Big/b.mov', { size: 9, sha256: sha('b'), mtimeMs: 5, parts: { partSize: 4, md5s: ['x==', 'y==', 'z=='] } });
    written.synced.set('a', { fileId: 'f-a', version: 2, sha256: sha('0') });
    written.synced.set('gone.txt', { fileId: 'f-g', version: 1, sha256: sha('e') });
    written.replaceRemote(scope, [
      ['a', 'f-a', 2, sha('0'), 3, 6],
      ['Dir/Upper.TXT', 'f-u', 4, sha('f'), 10, 7],
    ]);
    for (const lines of [FIRST_FORMAT_LINES, [...FIRST_FORMAT_LINES].reverse()]) {
      await writeFile(path.join(dir, 'index'), firstFormat(lines));
      const read = await WorkspaceIndex.load(dir);
      expect(contents(read)).toEqual(contents(written));
      for (const p of ['a', 'a/b', 'a.b', 'tab\there', '"quoted"', 'new\nline', 'é/ü.txt', 'missing']) expect(read.local.get(p)).toEqual(written.local.get(p));
      expect(read.remote.get('dir/upper.txt')).toEqual(['Dir/Upper.TXT', 'f-u', 4, sha('f'), 10, 7]);
      // Written whole in this format at the next save, with nothing else changed.
      expect(read.changed).toBe(true);
      await read.save();
      expect((await readFile(path.join(dir, 'index'), 'latin1')).startsWith(`lode-index\t${INDEX_FORMAT}\t`)).toBe(true);
      expect(contents(await WorkspaceIndex.load(dir))).toEqual(contents(written));
    }
  });

  it('reads records where they lie, one by one and then whole, from the file as it was opened', async () => {
    const dir = await records();
    const written = WorkspaceIndex.empty(dir);
    const paths = Array.from({ length: 1500 }, (_, i) => `folder ${i % 7}/ファイル ${i}.bin`).sort();
    for (const [i, p] of paths.entries()) written.local.set(p, digest(String(i % 10), { size: i }));
    await written.save();
    const read = await WorkspaceIndex.load(dir);
    // Another command rewrites the index meanwhile: this one reads on from the file it opened.
    const other = await WorkspaceIndex.load(dir);
    for (const p of paths) other.local.delete(p);
    other.local.set('other.txt', digest('o'));
    await other.save();
    expect(contents(await WorkspaceIndex.load(dir)).local).toEqual({ 'other.txt': digest('o') });
    // Past a few hundred single reads, the rest of the records is read at once.
    for (const [i, p] of paths.entries()) expect(read.local.get(p)?.size).toBe(i);
    expect(contents(read)).toEqual(contents(written));
  });

  it('writes paths that end or start with a lone surrogate so that the file reads back', async () => {
    const dir = await records();
    const written = WorkspaceIndex.empty(dir);
    for (const p of ['z.txt', '\ud83d', '\ude00y']) written.local.set(p, digest('a'));
    await written.save();
    const read = await WorkspaceIndex.load(dir);
    expect(read.local.get('z.txt')).toEqual(digest('a'));
    expect(read.local.size).toBe(3);
  });

  it('reads an index whose sections are not as its header says as no index', async () => {
    const dir = await records();
    await sample(dir);
    const file = path.join(dir, 'index');
    const whole = await readFile(file);
    const header = whole.subarray(0, whole.indexOf(10) + 1).toString();
    const { layout } = JSON.parse(header.split('\t')[2]) as { layout: { lines: number; paths: number; records: number } };
    const empty = { scope: null, local: {}, synced: {}, remote: {} };
    // Cut short, as a disk's fault could leave it.
    await writeFile(file, whole.subarray(0, whole.length - 1));
    expect(contents(await WorkspaceIndex.load(dir))).toEqual(empty);
    // The last path's end not the section's.
    const at = sectionsOf(header.length, layout);
    const shorter = Buffer.from(whole);
    shorter.writeUInt32LE(layout.paths - 1, at.pathEnds + 4 * (layout.lines - 1));
    await writeFile(file, shorter);
    expect(contents(await WorkspaceIndex.load(dir))).toEqual(empty);
    // A layout saying more lines than there are.
    await writeFile(
      file,
      Buffer.concat([Buffer.from(header.replace(/"lines":(\d+)/, (_, n: string) => `"lines":${Number(n) + 1}`)), whole.subarray(header.length)]),
    );
    expect(contents(await WorkspaceIndex.load(dir))).toEqual(empty);
    // An end moved within its section, or out of it: the index opens, and what it marks is refused when read.
    const damaged = { code: 'index_damaged' };
    for (const [ends, end] of [
      [at.recordEnds, whole.readUInt32LE(at.recordEnds) - 1],
      [at.pathEnds, 0xffff],
      [at.pathEnds, 0],
    ]) {
      const moved = Buffer.from(whole);
      moved.writeUInt32LE(end, ends);
      await writeFile(file, moved);
      const read = await WorkspaceIndex.load(dir);
      expect(() => read.local.get('"quoted"')).toThrow(expect.objectContaining(damaged));
    }
    // A record damaged inside: a newline in place of a tab, or a field that does not parse.
    const recordsAt = sectionsOf(header.length, layout).records;
    const inner = Buffer.from(whole);
    inner[inner.indexOf(9, recordsAt)] = 10;
    const field = Buffer.from(whole);
    field.write('x', field.indexOf('"partSize"', recordsAt));
    for (const [bytes, p] of [
      [inner, '"quoted"'],
      [field, 'Big/b.mov'],
    ] as const) {
      await writeFile(file, bytes);
      const read = await WorkspaceIndex.load(dir);
      expect(() => read.local.get(p)).toThrow(expect.objectContaining(damaged));
    }
    // No lines, yet sections that are not empty.
    const none = Buffer.from(`lode-index\t${INDEX_FORMAT}\t${JSON.stringify({ id: 'x', remote: null, layout: { lines: 0, paths: 3, records: 5 } })}\n`);
    await writeFile(file, Buffer.concat([none, Buffer.alloc(Math.ceil(none.length / 4) * 4 - none.length + 8)]));
    expect(contents(await WorkspaceIndex.load(dir))).toEqual(empty);
    // Not a file that can be read: said so, not taken for a missing index and written over.
    await rm(file);
    await mkdir(file);
    await expect(WorkspaceIndex.load(dir)).rejects.toMatchObject({ code: 'index_unreadable' });
  });

  it('finds a remote file by its key when a local file of another case holds the key as its path', async () => {
    const dir = await records();
    const written = await sample(dir);
    written.local.set('dir/upper.txt', digest('g'));
    written.remote.set('a.txt', ['a.txt', 'f-a', 3, sha('a'), 3, 8]);
    written.replaceRemote(
      scope,
      [...written.remote.keys()].map((key) => written.remote.get(key) as RemoteFile),
    );
    await written.save();
    const read = await WorkspaceIndex.load(dir);
    expect(read.remote.get('dir/upper.txt')).toEqual(['Dir/Upper.TXT', 'f-u', 4, sha('f'), 10, 7]);
    expect(read.remote.get('a.txt')).toEqual(['a.txt', 'f-a', 3, sha('a'), 3, 8]);
    expect(read.remote.has('Dir/Upper.TXT')).toBe(false);
    expect(read.remote.keys().sort()).toEqual(['a.txt', 'dir/upper.txt']);
    expect(read.local.get('dir/upper.txt')).toEqual(digest('g'));
  });

  it('appends a few changes as lines of the log, and replays them in order', async () => {
    const dir = await records();
    await sample(dir);
    const index = await WorkspaceIndex.load(dir);
    const indexBefore = await readFile(path.join(dir, 'index'), 'utf8');
    index.local.set('a.txt', digest('z'));
    index.synced.set('a.txt', { fileId: 'f-a', version: 3, sha256: sha('z') });
    index.synced.delete('gone.txt');
    index.remote.set('a.txt', ['a.txt', 'f-a', 3, sha('z'), 3, 8]);
    index.remote.delete('dir/upper.txt');
    index.setScope({ ...scope, seq: 8 });
    await index.save();
    // The index is left as it was: the changes are in the log alone.
    expect(await readFile(path.join(dir, 'index'), 'utf8')).toBe(indexBefore);
    expect((await readFile(path.join(dir, 'index.log'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(6);
    const read = await WorkspaceIndex.load(dir);
    expect(contents(read)).toEqual(contents(index));
    expect(read.synced.has('gone.txt')).toBe(false);
    expect(read.remote.size).toBe(1);
    expect(read.scope?.seq).toBe(8);
  });

  it('ignores a torn last line and a line with a bad checksum', async () => {
    const dir = await records();
    await sample(dir);
    const index = await WorkspaceIndex.load(dir);
    index.synced.set('a.txt', { fileId: 'f-a', version: 3, sha256: sha('z') });
    await index.save();
    const log = path.join(dir, 'index.log');
    const whole = await readFile(log, 'utf8');
    index.synced.set('a.txt', { fileId: 'f-a', version: 4, sha256: sha('y') });
    await index.save();
    const appended = (await readFile(log, 'utf8')).slice(whole.length);
    // Torn: the second line cut short, as a crash in its write leaves it.
    await writeFile(log, whole + appended.slice(0, appended.length - 5));
    expect((await WorkspaceIndex.load(dir)).synced.get('a.txt')?.version).toBe(3);
    // Damaged: one character of the second line changed.
    await writeFile(log, whole + appended.replace('"version":4', '"version":5'));
    expect((await WorkspaceIndex.load(dir)).synced.get('a.txt')?.version).toBe(3);
    // A torn line followed by another writer's whole one: that one still counts.
    index.synced.set('b.txt', { fileId: 'f-b', version: 1, sha256: sha('b') });
    await writeFile(log, whole + appended.slice(0, 20));
    await index.save();
    const read = await WorkspaceIndex.load(dir);
    expect(read.synced.get('b.txt')?.version).toBe(1);
  });

  it('folds the log into a new index once it outgrows its share, and skips a log left from before it', async () => {
    const dir = await records();
    await sample(dir);
    const index = await WorkspaceIndex.load(dir);
    index.synced.set('a.txt', { fileId: 'f-a', version: 3, sha256: sha('z') });
    await index.save();
    const oldLog = await readFile(path.join(dir, 'index.log'), 'utf8');
    index.synced.set('a.txt', { fileId: 'f-a', version: 4, sha256: sha('y') });
    for (let i = 0; i < 500; i += 1) index.local.set(`new/${i}.txt`, digest('n'));
    await index.save();
    expect(await readdir(dir)).toEqual(['index']);
    expect(contents(await WorkspaceIndex.load(dir))).toEqual(contents(index));
    // A crash after the new index was in place, before the log went: the log's lines name the old
    // index, and replayed they would take a.txt back to version 3.
    await writeFile(path.join(dir, 'index.log'), oldLog);
    const read = await WorkspaceIndex.load(dir);
    expect(read.synced.get('a.txt')?.version).toBe(4);
    expect(contents(read)).toEqual(contents(index));
  });

  it('reads a file as synced at the tip in place only while its size, mtime and every record agree', async () => {
    const dir = await records();
    const written = WorkspaceIndex.empty(dir);
    const synced = (c: string, version: number): SyncedFile => ({ fileId: `f-${c}`, version, sha256: sha(c) });
    for (const [p, c] of [
      ['a.txt', 'a'],
      ['Dir/Upper.TXT', 'u'],
      ['old.txt', 'o'],
      ['edited.txt', 'e'],
      ['parts.mov', 'p'],
    ]) {
      written.local.set(p, p === 'parts.mov' ? digest(c, { md5: undefined, parts: { partSize: 2, md5s: ['x==', 'y=='] } }) : digest(c));
      written.synced.set(p, synced(c, p === 'old.txt' ? 1 : 2));
    }
    written.local.set('edited.txt', digest('x'));
    written.local.set('new.txt', digest('n'));
    const tip = (p: string, c: string): RemoteFile => [p, `f-${c}`, 2, sha(c), 3, 6];
    written.replaceRemote(scope, [
      tip('a.txt', 'a'),
      tip('Dir/Upper.TXT', 'u'),
      tip('old.txt', 'o'),
      tip('edited.txt', 'e'),
      tip('parts.mov', 'p'),
      tip('theirs.txt', 't'),
    ]);
    await written.save();
    const read = await WorkspaceIndex.load(dir);
    const { size, mtimeMs } = digest('a');
    // Each asked on its own, found by moving along the lines from the first.
    const at = (p: string, s = size, m = mtimeMs, threshold = 1024) => read.unchangedAtTip(threshold)(p, s, m);
    expect(at('a.txt')).toBeGreaterThanOrEqual(0);
    expect(at('Dir/Upper.TXT')).toBeGreaterThanOrEqual(0);
    // Touched, resized, to go in parts, synced at an older version, edited, never synced, not here: each read in full.
    expect([at('a.txt', size, mtimeMs + 1), at('a.txt', size + 1), at('a.txt', size, mtimeMs, 3)]).toEqual([-1, -1, -1]);
    expect([at('old.txt'), at('edited.txt'), at('new.txt'), at('parts.mov'), at('theirs.txt'), at('nowhere.txt')]).toEqual([-1, -1, -1, -1, -1, -1]);
    // Asked in path order, then out of it (found by lookup): the same lines.
    const walked = read.unchangedAtTip(1024);
    const order = ['Dir/Upper.TXT', 'a.txt', 'edited.txt', 'new.txt', 'old.txt', 'theirs.txt'];
    expect(order.map((p) => walked(p, size, mtimeMs))).toEqual(order.map((p) => at(p)));
    expect([walked('a.txt', size, mtimeMs), walked('Dir/Upper.TXT', size, mtimeMs)]).toEqual([at('a.txt'), at('Dir/Upper.TXT')]);
    // The remote files but those on flagged lines.
    const skip = new Uint8Array(read.lineCount);
    skip[at('a.txt')] = 1;
    skip[at('Dir/Upper.TXT')] = 1;
    expect(read.remoteKeysBeside(skip).sort()).toEqual(['edited.txt', 'old.txt', 'parts.mov', 'theirs.txt']);
    // A record changed since the index was read: no longer read in place.
    read.remote.set('dir/upper.txt', ['Dir/Upper.TXT', 'f-u', 3, sha('v'), 3, 8]);
    read.synced.set('a.txt', synced('a', 3));
    expect([at('a.txt'), at('Dir/Upper.TXT')]).toEqual([-1, -1]);
    expect(read.remoteKeysBeside(new Uint8Array(read.lineCount)).sort()).toEqual([
      'a.txt',
      'dir/upper.txt',
      'edited.txt',
      'old.txt',
      'parts.mov',
      'theirs.txt',
    ]);
  });

  it('flags the lines with all three parts but those named, and clears those whose records change, mixed-case paths too', async () => {
    const dir = await records();
    const written = WorkspaceIndex.empty(dir);
    const paths = ['Dir/Upper.TXT', 'a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt'];
    for (const p of paths) {
      written.local.set(p, digest('a'));
      written.synced.set(p, { fileId: `f-${p}`, version: 1, sha256: sha('a') });
    }
    written.local.set('local-only.txt', digest('l'));
    written.replaceRemote(
      scope,
      paths.map((p): RemoteFile => [p, `f-${p}`, 1, sha('a'), 3, 6]),
    );
    await written.save();
    const read = await WorkspaceIndex.load(dir);
    const lineOf = (p: string) => read.unchangedAtTip(1024)(p, 3, digest('a').mtimeMs);
    const flagged = (flags: Uint8Array) => paths.filter((p) => flags[lineOf(p)] === 1);
    // Named by path, or by key (a case-insensitive collision): not flagged.
    const named = read.linesWithAllParts(['b.txt'], new Set(['dir/upper.txt']));
    expect(flagged(named.lines)).toEqual(['a.txt', 'c.txt', 'd.txt', 'e.txt']);
    expect(named.count).toBe(4);
    const { lines: flags, count } = read.linesWithAllParts([], new Set());
    expect(flagged(flags)).toEqual(paths);
    expect(count).toBe(paths.length);
    // Lines read before these changes: each record changed since clears its line, the remote one by key.
    const lines = paths.map(lineOf);
    read.remote.set('dir/upper.txt', ['Dir/Upper.TXT', 'f-u', 2, sha('v'), 3, 8]);
    read.remote.set('c.txt', ['c.txt', 'f-c.txt', 2, sha('v'), 3, 8]);
    read.synced.set('d.txt', { fileId: 'f-d.txt', version: 2, sha256: sha('v') });
    read.local.set('e.txt', digest('v'));
    expect(read.clearChanged(flags).sort((x, y) => x - y)).toEqual([lines[0], lines[3], lines[4], lines[5]].sort((x, y) => x - y));
    expect(paths.filter((_, i) => flags[lines[i]] === 1)).toEqual(['a.txt', 'b.txt']);
  });

  it('reads an index of an unknown format as no index: everything is made again', async () => {
    const dir = await records();
    await sample(dir);
    const text = await readFile(path.join(dir, 'index'), 'latin1');
    await writeFile(path.join(dir, 'index'), text.replace(/^lode-index\t\d+\t/, `lode-index\t${INDEX_FORMAT + 1}\t`), 'latin1');
    const read = await WorkspaceIndex.load(dir);
    expect(contents(read)).toEqual({ scope: null, local: {}, synced: {}, remote: {} });
    // Written whole at the next save, whatever little changed.
    expect(read.changed).toBe(true);
    await read.save();
    expect(await readFile(path.join(dir, 'index'), 'latin1')).toMatch(new RegExp(`^lode-index\t${INDEX_FORMAT}\t`));
  });
});

describe('a workspace of the records before the index', () => {
  it('is converted once: the old files are read into the index, then removed', async () => {
    const root = await records();
    const dir = path.join(root, STATE_DIR);
    const old = {
      state: { branch: 'exp', files: { 'a.txt': { fileId: 'f-a', version: 2, sha256: sha('a') } } },
      'hash-cache': { 'a.txt': digest('a'), 'b.txt': digest('b') },
      'remote-tree': { format: 1, ...scope, files: { 'a.txt': ['a.txt', 'f-a', 2, sha('a'), 3, 6] } },
    };
    await Workspace.create(root, 'main');
    for (const [name, value] of Object.entries(old)) await writeFile(path.join(dir, `${name}.json`), JSON.stringify(value));
    const workspace = await Workspace.find(root);
    expect(workspace.state.branch).toBe('exp');
    expect(contents(workspace.index)).toEqual({
      scope,
      local: old['hash-cache'],
      synced: old.state.files,
      remote: { 'a.txt': ['a.txt', 'f-a', 2, sha('a'), 3, 6] },
    });
    expect((await readdir(dir)).sort()).toEqual(['index', 'state.json']);
    const again = await Workspace.find(root);
    expect(again.state.branch).toBe('exp');
    expect(contents(again.index)).toEqual(contents(workspace.index));
  });

  it('keeps its synced versions when its cache and tree are unreadable: those are made again', async () => {
    const root = await records();
    const dir = path.join(root, STATE_DIR);
    await Workspace.create(root, 'main');
    await writeFile(path.join(dir, 'state.json'), JSON.stringify({ branch: 'main', files: { 'a.txt': { fileId: 'f-a', version: 2, sha256: sha('a') } } }));
    await writeFile(path.join(dir, 'hash-cache.json'), '{');
    await writeFile(path.join(dir, 'remote-tree.json'), JSON.stringify({ format: 9, files: {} }));
    const workspace = await Workspace.find(root);
    expect(contents(workspace.index)).toEqual({ scope: null, local: {}, synced: { 'a.txt': { fileId: 'f-a', version: 2, sha256: sha('a') } }, remote: {} });
  });
});

describe('the index file, for any records', () => {
  const char = fc.constantFrom('a', 'B', 'é', '日', '😀', '/', '.', ' ', '\t', '\n', '"', '=');
  const pathArb = fc.array(char, { minLength: 1, maxLength: 6 }).map((chars) => chars.join(''));
  const hex = fc.constantFrom('0', '7', 'a', 'f');
  const local = fc.record({
    size: fc.nat(),
    sha256: hex.map(sha),
    mtimeMs: fc.double({ min: 0, max: 2e12, noNaN: true }),
    md5: fc.option(fc.constantFrom('x==', 'md5y=='), { nil: undefined }),
  });
  const synced = fc.record({ fileId: fc.constantFrom('f-1', 'f-2'), version: fc.nat(), sha256: hex.map(sha) });
  const record = fc.record({ local: fc.option(local, { nil: undefined }), synced: fc.option(synced, { nil: undefined }), remote: fc.boolean() });

  it('reads back what was written and logged, records asked in any order, one by one or whole', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(pathArb, record, { maxKeys: 40 }),
        fc.integer({ min: 0, max: 700 }),
        fc.dictionary(pathArb, fc.option(local, { nil: null }), { maxKeys: 5 }),
        async (byPath, filler, changes) => {
          const dir = await records();
          const written = WorkspaceIndex.empty(dir);
          const remote: RemoteFile[] = [];
          for (const [p, r] of Object.entries(byPath)) {
            if (r.local) written.local.set(p, r.local);
            if (r.synced) written.synced.set(p, r.synced);
            if (r.remote) remote.push([p, 'f-r', 1, sha('r'), 2, 3]);
          }
          // Enough lines, at times, that reading them all passes from single reads to a whole one.
          for (let i = 0; i < filler; i += 1) written.local.set(`filler/${i}`, digest('9'));
          written.replaceRemote(scope, remote);
          await written.save();
          const read = await WorkspaceIndex.load(dir);
          expect(contents(read)).toEqual(contents(written));
          const again = await WorkspaceIndex.load(dir);
          for (const p of written.local.keys().reverse()) expect(again.local.get(p)).toEqual(written.local.get(p));
          // The log's changes over the file, read back in turn.
          for (const [p, value] of Object.entries(changes)) {
            if (value) read.local.set(p, value);
            else read.local.delete(p);
          }
          await read.save();
          expect(contents(await WorkspaceIndex.load(dir))).toEqual(contents(read));
        },
      ),
      { numRuns: 60 },
    );
  });
});
