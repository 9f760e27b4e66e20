import { Command, CommanderError } from 'commander';
import { branchCommands } from './commands/branch.ts';
import { historyCommands } from './commands/history.ts';
import { lockCommands } from './commands/locks.ts';
import { sessionCommands } from './commands/session.ts';
import { syncCommands } from './commands/sync.ts';
import { EXIT } from './failure.ts';

const program = new Command('lode')
  .description('Lode: version control for large binary files')
  .version('0.1.0')
  .option('--json', 'print one JSON document (errors too) for scripts')
  .option('--verbose', 'say when a call is retried')
  .exitOverride()
  .showHelpAfterError();

sessionCommands(program);
syncCommands(program);
lockCommands(program);
historyCommands(program);
branchCommands(program);
for (const command of program.commands) command.exitOverride();

try {
  await program.parseAsync();
} catch (error) {
  // Help and --version "fail" with code 0; any other parse error is a usage error.
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
}
