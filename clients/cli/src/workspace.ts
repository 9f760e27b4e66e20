import path from 'node:path';
import type { ContentDigest } from '@lode/sdk';
import { CliError } from './failure.ts';
import { readJsonFile, writeJsonFile } from './json-file.ts';

export const STATE_DIR = '.lode';

/** The file whose presence makes `root` a workspace. */
export function stateFile(root: string): string {
  return path.join(root, STATE_DIR, 'state.json');
}

/** The version of a path this workspace last synced: its `baseVersion` next time. */
export interface SyncedFile {
  fileId: string;
  version: number;
  sha256: string;
}

export interface WorkspaceState {
  /** The branch push and pull use when `--branch` is not given. */
  branch: string;
  files: Record<string, SyncedFile>;
}

/** A file's digest, valid while its size and mtime stay as recorded: an unchanged file is never hashed twice. */
export interface CachedDigest extends ContentDigest {
  mtimeMs: number;
}

export class Workspace {
  readonly root: string;
  hashes: Record<string, CachedDigest>;
  /**
   * Changed only through follow, recordSynced and forgetSynced, which note whether it changed: a save
   * writes only what changed, and a status of a large unchanged workspace neither writes nor
   * serializes it. The cache is replaced whole when it changes.
   */
  readonly #state: WorkspaceState;
  #stateChanged: boolean;
  #savedHashes: Record<string, CachedDigest> | undefined;

  /** `saved`: read from the workspace's files, not made new. */
  private constructor(root: string, state: WorkspaceState, hashes: Record<string, CachedDigest>, saved: boolean) {
    this.root = root;
    this.#state = state;
    this.#stateChanged = !saved;
    this.hashes = hashes;
    if (saved) this.#savedHashes = hashes;
  }

  static async create(root: string, branch: string): Promise<Workspace> {
    const workspace = new Workspace(root, { branch, files: {} }, {}, false);
    await workspace.save();
    return workspace;
  }

  get state(): Readonly<{ branch: string; files: Readonly<Record<string, Readonly<SyncedFile>>> }> {
    return this.#state;
  }

  /** Makes `branch` the one push and pull use when `--branch` is not given. */
  follow(branch: string): void {
    if (branch === this.#state.branch) return;
    this.#state.branch = branch;
    this.#stateChanged = true;
  }

  /** Records the version of a path this workspace has synced. */
  recordSynced(projectPath: string, fileId: string, version: number, sha256: string): void {
    const known = this.#state.files[projectPath];
    if (known?.fileId === fileId && known.version === version && known.sha256 === sha256) return;
    this.#state.files[projectPath] = { fileId, version, sha256 };
    this.#stateChanged = true;
  }

  forgetSynced(projectPath: string): void {
    if (!Object.hasOwn(this.#state.files, projectPath)) return;
    delete this.#state.files[projectPath];
    this.#stateChanged = true;
  }

  /** The workspace holding `from`: the nearest folder upwards with a `.lode/state.json`. */
  static async find(from: string = process.cwd()): Promise<Workspace> {
    for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
      const file = stateFile(dir);
      const state = await readJsonFile<WorkspaceState | null>(file, null).catch((error: unknown) => {
        throw new CliError(
          `Cannot read the workspace state ${file}: ${(error as Error).message}. Fix its permissions, or remove the .lode folder holding it (then lode init and lode pull make it again).`,
          { code: 'bad_workspace_state' },
        );
      });
      if (state) return new Workspace(dir, state, await readJsonFile(path.join(dir, STATE_DIR, 'hash-cache.json'), {}), true);
      if (path.dirname(dir) === dir) throw new CliError('Not a Lode workspace (no .lode/ here or above): run `lode init` first.', { code: 'not_a_workspace' });
    }
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
    if (this.#stateChanged) {
      // Noted as saved before the write: a change made while it goes on is saved by the next save.
      this.#stateChanged = false;
      await writeJsonFile(stateFile(this.root), this.#state).catch((error: unknown) => {
        this.#stateChanged = true;
        throw error;
      });
    }
    if (this.hashes !== this.#savedHashes) {
      const hashes = this.hashes;
      await writeJsonFile(path.join(this.root, STATE_DIR, 'hash-cache.json'), hashes);
      this.#savedHashes = hashes;
    }
  }
}
