import { Option, type Command } from 'commander';
import { LodeApiError, LodeClient } from '@lode/sdk';
import { action } from '../run.ts';
import { Output } from '../output.ts';
import { configDir, ensureDeviceId, readSettings, writeSettings } from '../settings.ts';
import { Workspace } from '../workspace.ts';
import { CliError } from '../failure.ts';
import { serverUrl } from './option-values.ts';

export function sessionCommands(program: Command): void {
  program
    .command('login')
    .description('check a project key and keep it in the config dir ($XDG_CONFIG_HOME/lode/config.json, mode 0600)')
    .addOption(new Option('--url <url>', "the server's base URL (https://…)").argParser(serverUrl).makeOptionMandatory())
    .requiredOption('--key <key>', 'a project key (lode_…)')
    .option('--device <name>', "this machine's device name (default: an id generated once per machine)")
    .action(
      action(async (options: { url: string; key: string; device?: string; json?: boolean }) => {
        const out = new Output(Boolean(options.json));
        const settings = await readSettings();
        const deviceId = options.device ?? settings.device ?? (await ensureDeviceId(settings));
        const identity = await new LodeClient({ url: options.url, key: options.key, deviceId }).validateKey().catch((error: unknown) => {
          // Another web server, or Lode's behind a path the URL lacks: its dashboard's address is the one.
          if (error instanceof LodeApiError && error.code === 'route_not_found')
            throw new CliError(
              `No Lode API answers at ${options.url}: give the server's base URL, the address of its dashboard (e.g. https://lode.example.com).`,
              { code: 'not_a_lode_server' },
            );
          throw error;
        });
        const file = await writeSettings({ ...settings, url: options.url, key: options.key, device: options.device ?? settings.device });
        out.result({ ...identity, deviceId, configFile: file }, () => [
          `Logged in as ${identity.userName} to ${identity.orgName} / ${identity.projectName} (device ${deviceId}).`,
          `Settings kept in ${file}.`,
        ]);
      }),
    );

  program
    .command('init')
    .description('make the current folder a workspace (.lode/ holds its state; .lodeignore uses gitignore syntax)')
    .option('--branch <name>', 'the branch push and pull use by default', 'main')
    .action(
      action(async (options: { branch: string; json?: boolean }) => {
        const out = new Output(Boolean(options.json));
        const root = process.cwd();
        const enclosing = await enclosingWorkspace();
        // A workspace inside another would push the same files again under other paths.
        if (enclosing)
          throw new CliError(
            enclosing.root === root
              ? `${root} is already a workspace.`
              : `${root} is inside the workspace ${enclosing.root}: work there, or init a folder outside it.`,
            { code: 'already_a_workspace' },
          );
        await Workspace.create(root, options.branch);
        out.result({ root, branch: options.branch, configDir: configDir() }, () => [
          `Initialised a Lode workspace in ${root} (branch ${options.branch}). Next: lode status, lode pull, lode push -m MESSAGE.`,
        ]);
      }),
    );
}

/** The workspace holding the current folder, if any; a state file that cannot be read is an error, not "none". */
async function enclosingWorkspace(): Promise<Workspace | null> {
  try {
    return await Workspace.find();
  } catch (error) {
    if (error instanceof CliError && error.code === 'not_a_workspace') return null;
    throw error;
  }
}
