import watchman from 'fb-watchman';

/** A path under the workspace that changed: its name as the file system has it, relative, with `/`. */
export interface MonitoredChange {
  name: string;
  exists: boolean;
  /** Watchman's file type: `f` a regular file, `l` a symlink… (never a folder: those are left out). */
  type: string;
}

export interface MonitorAnswer {
  /** Where the watcher stands now: the next question asks what changed since. */
  clock: string;
  /**
   * The changes since the clock asked about, or undefined when the watcher cannot tell them (no clock
   * asked about, or it lost track: restarted, or its kernel queue overflowed and it crawled again):
   * the caller walks the workspace.
   */
  changes?: MonitoredChange[];
}

/**
 * The file-system monitor: Watchman, which git's fsmonitor and Jest use too. It is written against
 * here rather than a watcher of our own because it keeps watching between commands, and because it
 * tells when it lost events (the kernel's queue overflowed, or it restarted): it then answers as a
 * fresh instance, and the caller walks. Node's own watcher drops that signal.
 */
export class FileMonitor {
  readonly #client: watchman.Client;

  private constructor(client: watchman.Client) {
    this.#client = client;
  }

  /** Connected to the Watchman server, which its client starts when none runs. Rejects when Watchman is not installed. */
  static async connect(): Promise<FileMonitor> {
    const client = new watchman.Client();
    const monitor = new FileMonitor(client);
    // An error with no listener would end the process: each command takes its own (#command).
    client.on('error', () => undefined);
    await monitor.#command(['version']);
    return monitor;
  }

  /**
   * What changed under `root` since `clock` (files and symlinks, not folders; the workspace's own
   * state folder left out), and the clock now. Watchman answers only once it has seen every change
   * made before the question (its cookie file): none made before is missed.
   */
  async changesSince(root: string, clock: string | undefined): Promise<MonitorAnswer> {
    const watch = (await this.#command(['watch-project', root])) as { watch: string; relative_path?: string };
    const relative = watch.relative_path ? { relative_root: watch.relative_path } : {};
    if (clock === undefined) {
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
        expression: ['allof', ['not', ['type', 'd']], ['not', ['dirname', '.lode']]],
        fields: ['name', 'exists', 'type'],
      },
    ])) as { clock: string; is_fresh_instance: boolean; files: MonitoredChange[] };
    return { clock: answer.clock, changes: answer.is_fresh_instance ? undefined : answer.files };
  }

  /** Stops watching `root`, when the watch is its own (not a folder above it that others watch). */
  async unwatch(root: string): Promise<void> {
    const watch = (await this.#command(['watch-project', root])) as { watch: string; relative_path?: string };
    if (!watch.relative_path) await this.#command(['watch-del', watch.watch]);
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
      const settle = () => {
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

/** How long Watchman may take to see the changes made before a question, a crawl of a large tree included. */
const SYNC_TIMEOUT_MS = 60_000;
