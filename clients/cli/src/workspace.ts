import { rm } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from './failure.ts';
import { validScope, type CachedDigest, type RemoteFile, type SyncedFile } from './index-format.ts';
import { readJsonFile, writeJsonFile } from './json-file.ts';
import { monitorStillOn, readMonitorRecord, removeMonitorRecord, writeMonitorRecord, type MonitorRecord, type RecordedListing } from './monitor-record.ts';
import { WorkspaceIndex, type ReadonlyTable, type Table } from './workspace-index.ts';

export const STATE_DIR = '.lode';

/** The file whose presence makes `root` a workspace. */
export function stateFile(root: string): string {
  return path.join(root, STATE_DIR, 'state.json');
}

export type { CachedDigest, SyncedFile } from './index-format.ts';

/** `.lode/state.json` from this format on: the branch only, the per-path records being in the index. */
const STATE_FORMAT = 2;

interface StateFile {
  format?: number;
  /** The branch push and pull use when `--branch` is not given. */
  branch: string;
  /** Before the index: the synced versions by path, with the hash cache and remote tree in files of their own. */
  files?: Record<string, SyncedFile>;
}

export class Workspace {
  readonly root: string;
  /** The per-path records: hash cache, synced versions and the record of the branch's tree (workspace-index.ts). */
  readonly index: WorkspaceIndex;
  /** Changed only through follow, recordSynced and forgetSynced: a save writes only what changed. */
  #branch: string;
  #branchChanged: boolean;
  /** The file monitor's record (monitor-record.ts): undefined while it is off. */
  #monitor: MonitorRecord | undefined;
  /** A listing to record once the index holding its digests is saved. */
  #listingToSave: RecordedListing | undefined;
  /** The listing this process recorded, the index's writing it was saved with, and the stamp last written. */
  #listingSaved: { listing: RecordedListing; indexId: string; stamp?: string } | undefined;

  private constructor(root: string, branch: string, index: WorkspaceIndex, saved: boolean) {
    this.root = root;
    this.#branch = branch;
    this.#branchChanged = !saved;
    this.index = index;
  }

  static async create(root: string, branch: string): Promise<Workspace> {
    const workspace = new Workspace(root, branch, WorkspaceIndex.empty(path.join(root, STATE_DIR)), false);
    await workspace.save();
    return workspace;
  }

  /** Each file's digest, valid while its size and mtime stay as recorded. */
  get hashes(): Table<CachedDigest> {
    return this.index.local;
  }

  get state(): Readonly<{ branch: string; files: ReadonlyTable<SyncedFile> }> {
    return { branch: this.#branch, files: this.index.synced };
  }

  /** Makes `branch` the one push and pull use when `--branch` is not given. */
  follow(branch: string): void {
    if (branch === this.#branch) return;
    this.#branch = branch;
    this.#branchChanged = true;
  }

  /** Records the version of a path this workspace has synced. */
  recordSynced(projectPath: string, fileId: string, version: number, sha256: string): void {
    const synced = { fileId, version, sha256 };
    if (!this.index.syncedIs(projectPath, synced)) this.index.synced.set(projectPath, synced);
  }

  forgetSynced(projectPath: string): void {
    this.index.synced.delete(projectPath);
  }

  /** The workspace holding `from`: the nearest folder upwards with a `.lode/state.json`. */
  static async find(from: string = process.cwd()): Promise<Workspace> {
    for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
      const file = stateFile(dir);
      const state = await readJsonFile<StateFile | null>(file, null).catch((error: unknown) => {
        throw new CliError(
          `Cannot read the workspace state ${file}: ${(error as Error).message}. Fix its permissions, or remove the .lode folder holding it (then lode init and lode pull make it again).`,
          { code: 'bad_workspace_state' },
        );
      });
      if (state) {
        const records = path.join(dir, STATE_DIR);
        if (state.files !== undefined) {
          // Converted: the index is written durably, then state.json, and only then do the old files go.
          const workspace = new Workspace(dir, state.branch, await convertRecords(records, state.files), false);
          await workspace.save();
          await Promise.all([OLD_HASH_CACHE, OLD_REMOTE_TREE].map((name) => rm(path.join(records, name), { force: true })));
          return workspace;
        }
        const [index, monitor] = await Promise.all([WorkspaceIndex.load(records), readMonitorRecord(records)]);
        const workspace = new Workspace(dir, state.branch, index, true);
        workspace.#monitor = monitor;
        return workspace;
      }
      if (path.dirname(dir) === dir) throw new CliError('Not a Lode workspace (no .lode/ here or above): run `lode init` first.', { code: 'not_a_workspace' });
    }
  }

  /** `.lode`: the records' folder. */
  get #stateDir(): string {
    return path.join(this.root, STATE_DIR);
  }

  /** The file monitor's record, while it is on. */
  get monitor(): Readonly<MonitorRecord> | undefined {
    return this.#monitor;
  }

  /**
   * Records a listing made with the monitor watching, once every file of it has its digest in the
   * index: saved after the index, so that a record never names a listing the index does not hold.
   */
  recordListing(listing: RecordedListing): void {
    if (this.#monitor) this.#listingToSave = listing;
  }

  /** Turns the file monitor on: the next listing walks, and is recorded. `socket`: where Watchman was reached (fs-monitor.ts). */
  async monitorOn(socket?: string): Promise<void> {
    this.#monitor ??= await writeMonitorRecord(this.#stateDir, { socket });
  }

  /** Where Watchman was reached, when the record names another socket: kept with the listing this command records. */
  monitorReachedOn(socket: string): void {
    if (this.#monitor && this.#monitor.socket !== socket) this.#monitor = { ...this.#monitor, socket };
  }

  async monitorOff(): Promise<void> {
    await removeMonitorRecord(this.#stateDir);
    this.#monitor = undefined;
    this.#listingToSave = undefined;
    this.#listingSaved = undefined;
  }

  file(projectPath: string): string {
    return path.join(this.root, ...projectPath.split('/'));
  }

  /** A path on disk (relative to the current folder) as a project path (NFC), refused outside the workspace. */
  projectPath(localPath: string): string {
    const relative = path.relative(this.root, path.resolve(localPath));
    if (relative.startsWith('..') || path.isAbsolute(relative))
      throw new CliError(`${localPath} is outside the workspace ${this.root}`, { exitCode: 2, code: 'usage' });
    return relative.split(path.sep).join('/').normalize('NFC');
  }

  journalFile(): string {
    return path.join(this.root, STATE_DIR, 'push-journal.json');
  }

  async save(): Promise<void> {
    // The index first: the state file is what makes a folder a workspace (and, before the index, held
    // its records), so it is replaced only once the records it points to are in place.
    await this.index.save();
    if (this.#branchChanged) {
      // Noted as saved before the write: a change made while it goes on is saved by the next save.
      this.#branchChanged = false;
      await writeStateFile(this.root, this.#branch).catch((error: unknown) => {
        this.#branchChanged = true;
        throw error;
      });
    }
    await this.#saveListing();
  }

  /**
   * Writes the listing recorded, stamped with the records as just saved. A later save of the same
   * process stamps it again: its digests are still all there. Past a rewrite of the index (a
   * compaction) the changes made since the listing are no longer in the log, where the next status
   * would read them as changed, so the record no longer says which files read as unchanged.
   */
  async #saveListing(): Promise<void> {
    if (this.#listingToSave) {
      this.#listingSaved = { listing: this.#listingToSave, indexId: this.index.id };
      this.#listingToSave = undefined;
    }
    const saved = this.#listingSaved;
    if (!saved || saved.stamp === this.index.stamp) return;
    if (!(await monitorStillOn(this.#stateDir))) {
      this.#monitor = undefined;
      this.#listingSaved = undefined;
      return;
    }
    const { compared, ...listing } = saved.listing;
    const stamp = this.index.stamp;
    this.#monitor = await writeMonitorRecord(this.#stateDir, {
      listing: { ...listing, compared: saved.indexId === this.index.id ? compared : undefined, stamp },
      socket: this.#monitor?.socket,
    });
    saved.stamp = stamp;
  }
}

function writeStateFile(root: string, branch: string): Promise<void> {
  return writeJsonFile(stateFile(root), { format: STATE_FORMAT, branch }, { durable: true });
}

/**
 * The records before the index (state.json with its files, hash-cache.json, remote-tree.json) as an
 * index, to be saved. A crash before the new state.json is in place leaves the old records, converted
 * again next time.
 */
async function convertRecords(records: string, files: Record<string, SyncedFile>): Promise<WorkspaceIndex> {
  const index = WorkspaceIndex.empty(records);
  for (const [p, synced] of Object.entries(files)) index.synced.set(p, synced);
  // The cache and the tree are only ever a saving: unreadable, they are rebuilt.
  const hashes = await readJsonFile<Record<string, CachedDigest>>(path.join(records, OLD_HASH_CACHE), {}).catch(() => ({}));
  for (const [p, digest] of Object.entries(hashes)) index.local.set(p, digest);
  const tree = await readJsonFile<OldRemoteTree | null>(path.join(records, OLD_REMOTE_TREE), null).catch(() => null);
  if (tree?.format === 1 && typeof tree.files === 'object' && tree.files !== null) {
    const scope = { server: tree.server, projectId: tree.projectId, branch: tree.branch, generation: tree.generation, seq: tree.seq };
    if (validScope(scope)) index.replaceRemote(scope, Object.values(tree.files));
  }
  return index;
}

const OLD_HASH_CACHE = 'hash-cache.json';
const OLD_REMOTE_TREE = 'remote-tree.json';

interface OldRemoteTree {
  format: number;
  server: string;
  projectId: string;
  branch: string;
  generation: string;
  seq: number;
  files: Record<string, RemoteFile>;
}
