import { Option, type Command } from 'commander';
import { allPages, LodeApiError } from '@lode/sdk';
import { CliError, EXIT, refusedInput } from '../failure.ts';
import { plural } from '../output.ts';
import { connected } from '../run.ts';
import { commitMessage } from './option-values.ts';

interface MergeConflict {
  fileId: string;
  path: string;
  sourceVersion: number | null;
  targetVersion: number | null;
}

export function branchCommands(program: Command): void {
  const branch = program.command('branch').description('list, create, delete and merge branches');

  branch
    .command('list')
    .description('every branch, main first')
    .action(
      connected(async ({ client, out, signal }) => {
        const branches = await allPages((cursor) => client.listBranches({ limit: 200, cursor }, { signal }));
        out.result({ data: branches }, () =>
          branches.map(
            (b) => `${b.name}  ${b.headSequenceNum === null ? '(no commits)' : `#${b.headSequenceNum}`}${b.forkedFrom ? `  from ${b.forkedFrom.branch}` : ''}`,
          ),
        );
      }),
    );

  branch
    .command('create')
    .argument('<name>')
    .option('--from <branch>', 'fork from this branch’s head (default main)')
    .action(
      connected(async ({ client, out, signal }, name: string, options: { from?: string }) => {
        const created = await client
          .createBranch(name, options.from, { signal })
          .catch(namingBranches([options.from]))
          .catch(refusedInput);
        out.result(created, () => [`Created ${created.name} from ${created.forkedFrom?.branch ?? 'main'}.`]);
      }),
    );

  branch
    .command('delete')
    .argument('<name>')
    .action(
      connected(async ({ client, out, signal }, name: string) => {
        const deleted = await client
          .deleteBranch(name, { signal })
          .catch(namingBranches([name]))
          .catch(refusedInput);
        out.result(deleted, () => [`Deleted ${name}.`]);
      }),
    );

  branch
    .command('merge')
    .argument('<name>', 'the branch to merge')
    .option('--into <branch>', 'the target (default main)')
    .addOption(new Option('-m, --message <message>', 'the merge commit message').argParser(commitMessage))
    .addOption(new Option('--take <side>', 'for every conflicting file, take the source or the target').choices(['source', 'target']))
    .action(
      connected(async ({ client, out, signal }, name: string, options: { into?: string; message?: string; take?: 'source' | 'target' }) => {
        const request = { into: options.into, message: options.message };
        let merged;
        try {
          merged = await client
            .mergeBranch(name, request, { signal })
            .catch(namingBranches([name, options.into]))
            .catch(refusedInput);
        } catch (error) {
          if (!(error instanceof LodeApiError && error.code === 'merge_conflict')) throw error;
          const conflicts = (error.body.conflicts as MergeConflict[] | undefined) ?? [];
          if (!options.take) {
            throw new CliError(
              `${plural(error.body.count as number, 'file')} changed on both branches:\n${conflicts.map((c) => `  ${c.path} (source v${c.sourceVersion ?? '-'}, target v${c.targetVersion ?? '-'})`).join('\n')}\nMerge again with --take source or --take target.`,
              { exitCode: EXIT.conflict, code: 'merge_conflict', details: { conflicts } },
            );
          }
          merged = await client.mergeBranch(
            name,
            { ...request, resolutions: conflicts.map((c) => ({ fileId: c.fileId, take: options.take as 'source' | 'target' })) },
            { signal },
          );
        }
        out.result(merged, () => [`Merged ${name} into ${merged.branch}: commit #${merged.sequenceNum} (${plural(merged.fileCount, 'file')}).`]);
      }),
    );
}

/**
 * The API's 404 for a branch does not repeat the name (another project's branch reads exactly as
 * no branch at all); the CLI knows which names it sent.
 */
function namingBranches(names: (string | undefined)[]): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof LodeApiError && error.code === 'not_found')) throw error;
    const asked = names.filter((n): n is string => n !== undefined).map((n) => `"${n}"`);
    throw new CliError(`No branch ${asked.join(' or ')}: \`lode branch list\` shows the branches.`, {
      exitCode: EXIT.usage,
      code: 'branch_not_found',
      details: { status: error.status },
    });
  };
}
