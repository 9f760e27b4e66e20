import { Command, CommanderError } from 'commander';
import { adminCommands } from './commands/admin.ts';
import { branchCommands } from './commands/branch.ts';
import { historyCommands } from './commands/history.ts';
import { lockCommands } from './commands/locks.ts';
import { lsCommands } from './commands/ls.ts';
import { monitorCommands } from './commands/monitor.ts';
import { projectCommands } from './commands/project.ts';
import { sessionCommands } from './commands/session.ts';
import { storageCommands } from './commands/storage.ts';
import { retentionCommands } from './commands/retention.ts';
import { quotaCommands } from './commands/quota.ts';
import { syncCommands } from './commands/sync.ts';
import { CliError, EXIT } from './failure.ts';
import { Output } from './output.ts';

// A reader that stops early (`lode log | head -1`) must neither crash the command with a stack trace
// nor stop a push half-way: what it no longer reads is dropped, and the command ends with its own code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

// Known before parsing, since a usage error can stop the parse before commander reaches `--json`
// (`lode log -n abc --json`); nothing after `--` is an option.
const args = process.argv.slice(2);
const json = args.slice(0, args.includes('--') ? args.indexOf('--') : undefined).includes('--json');

const program = new Command('lode')
  .description('Lode: version control for large binary files')
  .version('0.1.0')
  // Options after a command name are that command's own: `lode download X --version 3` names a
  // version of X, it does not print the CLI's version.
  .enablePositionalOptions()
  .exitOverride()
  // With --json, a usage error is the one JSON document on stdout (below), without commander's text on stderr.
  .configureOutput({ writeErr: (text) => (json ? undefined : process.stderr.write(text)) })
  .showHelpAfterError();

sessionCommands(program);
syncCommands(program);
monitorCommands(program);
lockCommands(program);
historyCommands(program);
lsCommands(program);
branchCommands(program);
storageCommands(program);
retentionCommands(program);
quotaCommands(program);
projectCommands(program);
adminCommands(program);
// Every command takes the global options too, since positional options leave `lode push --json` to `push`.
for (const command of [program, ...descendants(program)])
  command.option('--json', 'print one JSON document (errors too) for scripts').option('--verbose', 'say when a call is retried');

try {
  await program.parseAsync();
} catch (error) {
  // Every action reports its own failures (run.ts), so what reaches here is commander's: help and
  // --version "fail" with code 0, any other is a usage error (a bad option value included).
  if (!(error instanceof CommanderError)) throw error;
  if (error.exitCode === 0) process.exitCode = EXIT.ok;
  else {
    // commander's help shown for a missing command carries no sentence of its own.
    const message = error.code === 'commander.help' ? 'No command given: `lode --help` lists them.' : error.message.replace(/^error: /, '');
    if (json) new Output(true).failure(new CliError(message, { exitCode: EXIT.usage, code: 'usage' }));
    process.exitCode = EXIT.usage;
  }
}

function descendants(command: Command): Command[] {
  return command.commands.flatMap((sub) => [sub, ...descendants(sub)]);
}
