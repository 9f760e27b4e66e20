import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** A JSON file, or `fallback` when it does not exist. */
export async function readJsonFile<T>(file: string, fallback: T): Promise<T> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw error;
  }
}

export interface WriteOptions {
  /** The file's mode (e.g. 0o600 for one that holds a key); set as it is created, never looser. */
  mode?: number;
  /** The mode of folders made for it. */
  dirMode?: number;
  /** Pretty-printed, for a file people read. */
  indent?: number;
  /** Flushed to disk, and its folder after the rename: once the write returns, a crash leaves the new file. */
  durable?: boolean;
}

/** The last change queued for each file of this process. */
const queues = new Map<string, Promise<void>>();

/** Runs `change` once every change of `file` asked for before it is over, whether it failed or not. */
function queued(file: string, change: () => Promise<void>): Promise<void> {
  const done = (queues.get(file) ?? Promise.resolve()).catch(() => undefined).then(change);
  queues.set(file, done);
  const forget = () => {
    if (queues.get(file) === done) queues.delete(file);
  };
  done.then(forget, forget);
  return done;
}

/**
 * Written to a temporary file and renamed: a crash leaves the old file or the new one, never half of
 * one. Changes of one file run one after the other, in the order they were asked for, so the file
 * ends with the last value (two batches confirmed at once both journal their files), and each write
 * has a temporary name of its own, so none renames away another's (nor another process's).
 */
export async function writeJsonFile(file: string, value: unknown, options: WriteOptions = {}): Promise<void> {
  // Serialized now: the value may change while an earlier write of the file is still going on.
  const text = JSON.stringify(value, null, options.indent);
  return writeWholeFile(file, options.indent === undefined ? text : `${text}\n`, options);
}

/** `contents` as the whole of `file`, replaced as writeJsonFile replaces it. */
export function writeWholeFile(file: string, contents: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  return queued(file, () => replaceFile(file, contents, options));
}

async function replaceFile(file: string, contents: string | Uint8Array, options: WriteOptions): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: options.dirMode });
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    // 'wx': a fresh file, so `mode` is the mode it gets (an existing one would keep its own).
    await withHandle(temp, 'wx', options.mode, async (handle) => {
      await handle.writeFile(contents);
      if (options.durable) await handle.sync();
    });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  if (options.durable) await withHandle(path.dirname(file), 'r', undefined, (folder) => folder.sync());
}

async function withHandle(file: string, flags: string, mode: number | undefined, use: (handle: FileHandle) => Promise<void>): Promise<void> {
  const handle = await open(file, flags, mode);
  try {
    await use(handle);
  } finally {
    await handle.close();
  }
}

/** Removed after the writes of it already asked for, which would otherwise bring it back. */
export function removeFile(file: string): Promise<void> {
  return queued(file, () => rm(file, { force: true }));
}
