import path from 'node:path';
import type { ContentDigest } from '@lode/sdk';
import { CliError } from './failure.ts';
import { readJsonFile, readTextFile, writeJsonFile, writeTextFile } from './json-file.ts';

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
  state: WorkspaceState;
  hashes: Record<string, CachedDigest>;
  /**
   * What the files hold, as last read or written: a save writes only what changed, and a status
   * of a large unchanged workspace writes nothing. The cache is replaced whole when it changes.
   */
  #savedState: string | undefined;
  #savedHashes: Record<string, CachedDigest> | undefined;

  /** `savedState`: the state file's text, when the state was read from it (what `save` compares with). */
  private constructor(root: string, state: WorkspaceState, hashes: Record<string, CachedDigest>, savedState?: string) {
    this.root = root;
    this.state = state;
    this.hashes = hashes;
    if (savedState !== undefined) {
      this.#savedState = savedState;
      this.#savedHashes = hashes;
    }
  }

  static async create(root: string, branch: string): Promise<Workspace> {
    const workspace = new Workspace(root, { branch, files: {} }, {});
    await workspace.save();
    return workspace;
  }

  /** The workspace holding `from`: the nearest folder upwards with a `.lode/state.json`. */
  static async find(from: string = process.cwd()): Promise<Workspace> {
    for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
      const file = stateFile(dir);
      const saved = await readTextFile(file)
        .then((text) => (text === undefined ? undefined : { text, state: JSON.parse(text) as WorkspaceState | null }))
        .catch((error: unknown) => {
          throw new CliError(
            `Cannot read the workspace state ${file}: ${(error as Error).message}. Fix its permissions, or remove the .lode folder holding it (then lode init and lode pull make it again).`,
            { code: 'bad_workspace_state' },
          );
        });
      if (saved?.state) return new Workspace(dir, saved.state, await readJsonFile(path.join(dir, STATE_DIR, 'hash-cache.json'), {}), saved.text);
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
    const state = JSON.stringify(this.state);
    if (state !== this.#savedState) {
      await writeTextFile(stateFile(this.root), state);
      this.#savedState = state;
    }
    if (this.hashes !== this.#savedHashes) {
      const hashes = this.hashes;
      await writeJsonFile(path.join(this.root, STATE_DIR, 'hash-cache.json'), hashes);
      this.#savedHashes = hashes;
    }
  }
}
