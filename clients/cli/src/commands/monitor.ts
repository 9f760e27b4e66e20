import type { Command } from 'commander';
import { CliError, EXIT } from '../failure.ts';
import { FileMonitor } from '../fs-monitor.ts';
import { Output } from '../output.ts';
import { action } from '../run.ts';
import { Workspace } from '../workspace.ts';

export function monitorCommands(program: Command): void {
  program
    .command('monitor')
    .description('turn the file monitor (Watchman) on or off: with it on, status, push and pull look only at the files changed since the last status')
    .argument('[state]', 'on or off (without it: whether the monitor is on)')
    .action(
      action(async (state: string | undefined, options: { json?: boolean }) => {
        if (state !== undefined && state !== 'on' && state !== 'off')
          throw new CliError(`"${state}" is neither on nor off.`, { exitCode: EXIT.usage, code: 'usage' });
        const out = new Output(Boolean(options.json));
        const workspace = await Workspace.find();
        if (state === 'on') {
          // Watching from now: the next status walks once, and those after look only at what changed.
          const monitor = await FileMonitor.connect(workspace.monitor?.socket).catch((error: unknown) => {
            throw new CliError(
              `The file monitor needs Watchman, which did not answer (${(error as Error).message}). Install it (apt install watchman, brew install watchman, or facebook.github.io/watchman), then run lode monitor on again.`,
              { code: 'monitor_unavailable' },
            );
          });
          try {
            await monitor.changesSince(workspace.root, undefined);
          } finally {
            monitor.end();
          }
          await workspace.monitorOn(monitor.socket);
        } else if (state === 'off' && workspace.monitor) {
          const { socket } = workspace.monitor;
          await workspace.monitorOff();
          // The watch is Watchman's to keep or drop: only a failure to reach it is left unsaid.
          const monitor = await FileMonitor.connect(socket).catch(() => undefined);
          await monitor?.unwatch(workspace.root).catch(() => undefined);
          monitor?.end();
        }
        const on = workspace.monitor !== undefined;
        out.result({ monitor: on ? 'on' : 'off', watcher: 'watchman', listed: Boolean(workspace.monitor?.listing) }, () => [
          on
            ? `The file monitor (Watchman) is on: status, push and pull look only at the files changed since ${workspace.monitor?.listing ? 'the last status' : 'the next status, which walks once'}.`
            : 'The file monitor is off: status, push and pull walk every folder (lode monitor on turns it on).',
        ]);
      }),
    );
}
