import { lstatSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import watchman from 'fb-watchman';

/** A path under the workspace that changed: its name as the file system has it, relative, with `/`. */
export interface MonitoredChange {
  name: string;
  exists: boolean;
  /** Watchman's file type: `f` a regular file, `d` a folder, `l` a symlink… (a name's type now, or last seen). */
  type: string;
}

export interface MonitorAnswer {
  /** Where the watcher stands now: the next question asks what changed since. */
  clock: string;
  /**
   * The changes since the clock asked about, or undefined when the watcher cannot tell them: no clock
   * asked about, one from before it restarted, or folders it is set to leave unwatched. The caller
   * walks the workspace.
   */
  changes?: MonitoredChange[];
}

/**
 * The file-system monitor: Watchman, which git's fsmonitor and Jest use too. It is written against
 * here rather than a watcher of our own because it keeps watching between commands and never
 * answers with events lost: when the kernel's queue overflows it crawls the tree again, comparing
 * every file's stat with what it had, and reports what differs; a clock from before it restarted is
 * answered as a fresh instance. Node's own watcher drops the overflow without a word.
 */
export class FileMonitor {
  readonly #client = new watchman.Client();
  #socket: string | undefined;

  private constructor() {
    // An error with no listener would end the process: each command takes its own (#command).
    this.#client.on('error', () => undefined);
  }

  /**
   * Connected to the Watchman server, which its client starts when none runs. Rejects when Watchman
   * is not installed. Given `socket`, where Watchman was reached before, it connects there directly:
   * otherwise fb-watchman starts `watchman get-sockname` to find the socket, a process for each lode
   * command. That socket is a shortcut only: when it cannot be reached (Watchman stopped, or listening
   * elsewhere since) the client finds the socket as it would without it, and `socket` names the new one.
   */
  static async connect(socket?: string): Promise<FileMonitor> {
    // The user's own WATCHMAN_SOCK wins: fb-watchman connects to it.
    if (socket && !process.env.WATCHMAN_SOCK && ownSocket(socket)) {
      const direct = new FileMonitor();
      if (await direct.#start(socket)) return direct;
    }
    const monitor = new FileMonitor();
    await monitor.#start(undefined);
    return monitor;
  }

  /**
   * The socket this connection reached Watchman on, for the next to connect to directly; undefined
   * under the user's WATCHMAN_SOCK, a choice of theirs for their session, not ours to keep.
   */
  get socket(): string | undefined {
    return this.#socket;
  }

  /**
   * Sends the first command, with which the client connects: to `socket` when given, or where
   * fb-watchman finds it. False when `socket` could not be reached; any other failure rejects.
   */
  async #start(socket: string | undefined): Promise<boolean> {
    let reached = false;
    this.#client.once('connect', () => (reached = true));
    try {
      // Watchman's answer names its socket, and proves it answers as `version` would.
      const answer = (await withWatchmanSock(socket, () => this.#command(['get-sockname']))) as { sockname: string };
      this.#socket = socket ?? (process.env.WATCHMAN_SOCK ? undefined : answer.sockname);
      return true;
    } catch (error) {
      this.#client.end();
      if (socket !== undefined && !reached) return false;
      throw error;
    }
  }

  /**
   * What changed under `root` since `clock` (every name, folders too: a file replaced by a folder is
   * reported under its name with the folder's type; the workspace's own state folder left out), and
   * the clock now. Watchman answers only once it has seen every change made before the question (its
   * cookie file): none made before is missed.
   */
  async changesSince(root: string, clock: string | undefined): Promise<MonitorAnswer> {
    const watch = (await this.#command(['watch-project', root])) as { watch: string; relative_path?: string };
    const relative = watch.relative_path ? { relative_root: watch.relative_path } : {};
    // Folders a .watchmanconfig leaves unwatched would hide their changes from every answer.
    const config = (await this.#command(['get-config', watch.watch])) as { config?: { ignore_dirs?: unknown[] } };
    if (clock === undefined || (config.config?.ignore_dirs?.length ?? 0) > 0) {
      const now = (await this.#command(['clock', watch.watch, { sync_timeout: SYNC_TIMEOUT_MS }])) as { clock: string };
      return { clock: now.clock };
    }
    const answer = (await this.#command([
      'query',
      watch.watch,
      {
        ...relative,
        since: clock,
        sync_timeout: SYNC_TIMEOUT_MS,
        expression: ['not', ['dirname', '.lode']],
        fields: ['name', 'exists', 'type'],
      },
    ])) as { clock: string; is_fresh_instance: boolean; files: MonitoredChange[] };
    return { clock: answer.clock, changes: answer.is_fresh_instance ? undefined : answer.files };
  }

  /** Stops watching `root` when it is watched as a root of its own; a watch of a folder above it is left to whoever made it. */
  async unwatch(root: string): Promise<void> {
    // Watchman names a root by its real path.
    const real = await realpath(root);
    const { roots } = (await this.#command(['watch-list'])) as { roots: string[] };
    if (roots.includes(real)) await this.#command(['watch-del', real]);
  }

  end(): void {
    this.#client.end();
  }

  /**
   * One command's answer. The client reports a failure to start Watchman or reach it as an event,
   * not to the commands waiting: each waits for that event too, or it would wait for ever.
   */
  #command(args: [string, ...unknown[]]): Promise<unknown> {
    const client = this.#client;
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        settle();
        reject(error);
      };
      const ended = () => fail(new Error('Watchman closed the connection'));
      // A server that no longer answers must not hold the command: past its own time to settle, the caller walks.
      const timer = setTimeout(() => fail(new Error(`Watchman did not answer within ${ANSWER_TIMEOUT_MS / 1000} s`)), ANSWER_TIMEOUT_MS);
      const settle = () => {
        clearTimeout(timer);
        client.off('error', fail);
        client.off('end', ended);
      };
      client.once('error', fail);
      client.once('end', ended);
      client.command(args as Parameters<watchman.Client['command']>[0], (error: Error | null | undefined, answer: unknown) => {
        settle();
        if (error) reject(error);
        else resolve(answer);
      });
    });
  }
}

/**
 * Whether `socket` is a socket of this user's. The record naming it is a file in the workspace, and
 * what answers on it is trusted with the listing: Watchman's own client checks its state folder's
 * owner likewise.
 */
function ownSocket(socket: string): boolean {
  try {
    const stat = lstatSync(socket);
    return stat.isSocket() && (process.getuid === undefined || stat.uid === process.getuid());
  } catch {
    return false;
  }
}

/**
 * `send()`, with WATCHMAN_SOCK set to `socket` (when given) while it runs. fb-watchman reads it as the
 * first command connects, synchronously: set no longer than that, it reaches no child process started
 * later, nor a later connection of this one.
 */
function withWatchmanSock<T>(socket: string | undefined, send: () => T): T {
  if (socket === undefined) return send();
  const own = process.env.WATCHMAN_SOCK;
  process.env.WATCHMAN_SOCK = socket;
  try {
    return send();
  } finally {
    if (own === undefined) delete process.env.WATCHMAN_SOCK;
    else process.env.WATCHMAN_SOCK = own;
  }
}

/** How long Watchman may take to see the changes made before a question, a crawl of a large tree included. */
const SYNC_TIMEOUT_MS = 60_000;
/** How long a command waits for Watchman's answer: its time to settle, and some. */
const ANSWER_TIMEOUT_MS = SYNC_TIMEOUT_MS + 10_000;
