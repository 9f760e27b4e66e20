import type { Command } from 'commander';
import { LodeApiError } from '@lode/sdk';
import { CliError, EXIT, refusedInput } from '../failure.ts';
import { ask, canAsk } from '../prompt.ts';
import { connected } from '../run.ts';

export function projectCommands(program: Command): void {
  const project = program.command('project').description("the key's project as a whole");
  project
    .command('delete')
    .description(
      "delete the key's project (org owners): every key of it stops working at once, and it is purged with all its files after the server's undo window unless an owner brings it back from the dashboard",
    )
    .option('-y, --yes', 'delete without asking (needed when not run in a terminal)')
    .action(
      connected(async ({ client, out, signal }, options: { yes?: boolean }) => {
        const identity = await client.validateKey({ signal });
        const named = `${identity.orgSlug}/${identity.projectSlug}`;
        if (!options.yes) {
          if (!canAsk(out.json))
            throw new CliError(
              `Nothing was deleted: deleting ${named} stops every key of it and purges its files after the undo window, so it asks for confirmation, and this is not a terminal (or --json is on). Run again with --yes.`,
              { exitCode: EXIT.usage, code: 'confirmation_required' },
            );
          // The name, not "yes": a reflex answer must not delete the wrong project.
          if ((await ask(`Delete project ${named} and every file in it? Type its name (${identity.projectName}) to confirm: `)) !== identity.projectName) {
            return out.result({ cancelled: true }, () => ['Cancelled: nothing was deleted.']);
          }
        }
        const deleted = await client.deleteProject({ signal }).catch(explainRefusal);
        out.result(deleted, () => [
          `Deleted project ${named}: its keys no longer work.`,
          `It will be purged, with all its files, after ${deleted.purgeAfter}; until then an owner can bring it back from the dashboard (or an operator: lode admin projects undelete --project ${named}).`,
        ]);
      }),
    );
}

function explainRefusal(error: unknown): never {
  if (error instanceof LodeApiError && error.code === 'forbidden')
    throw new CliError(`Nothing was deleted: ${error.message}.`, { code: error.code, details: { ...error.body, status: error.status } });
  return refusedInput(error);
}
