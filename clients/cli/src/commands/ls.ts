import type { Command } from 'commander';
import { allPages, LodeApiError, type FolderChild } from '@lode/sdk';
import { CliError, EXIT, refusedInput } from '../failure.ts';
import { formatBytes, plural } from '../output.ts';
import { optionalWorkspace } from '../resolve.ts';
import { connected } from '../run.ts';

export function lsCommands(program: Command): void {
  program
    .command('ls')
    .description('one folder of a branch: its subfolders with their file counts and sizes, then its files')
    .argument('[path]', 'the folder (in a workspace: a folder on disk, default the current one; elsewhere: a project path, default the root)')
    .option('--branch <name>', 'the branch (default: the workspace’s, else main)')
    .action(
      connected(async ({ client, out, signal }, folder: string | undefined, options: { branch?: string }) => {
        const workspace = await optionalWorkspace();
        const prefix = workspace ? workspace.projectPath(folder ?? '.') : (folder ?? '').replace(/^\/+/, '');
        const branch = options.branch ?? workspace?.state.branch ?? 'main';
        const children = await allPages((cursor) => client.listFolder({ branch, prefix: prefix || undefined, limit: 200, cursor }, { signal }))
          .catch(noSuchFolder(prefix, branch))
          .catch(refusedInput);
        const shown = prefix === '' ? '/' : `${prefix.replace(/\/$/, '')}/`;
        out.result({ branch, path: prefix, data: children }, () =>
          children.length === 0 ? [`No files on ${branch} yet.`] : [`${shown} on ${branch}`, ...lines(children)],
        );
      }),
    );
}

/** One line a child, names padded to one column: `Maps/  3 files  1.2 MiB`, `a.png  10 B  v2`. */
function lines(children: readonly FolderChild[]): string[] {
  const name = (c: FolderChild) => (c.type === 'folder' ? `${c.name}/` : c.name);
  const width = Math.max(...children.map((c) => name(c).length));
  return children.map(
    (c) =>
      `  ${name(c).padEnd(width)}  ${c.type === 'folder' ? `${plural(c.fileCount, 'file')}  ${formatBytes(c.totalSize)}` : `${formatBytes(c.size)}  v${c.version}`}`,
  );
}

/** The API's 404 names neither the folder nor the branch (another project's reads as none); the CLI knows both. */
function noSuchFolder(prefix: string, branch: string): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof LodeApiError && error.code === 'not_found')) throw error;
    throw new CliError(`No folder "${prefix}" on ${branch}, or no branch ${branch}: names match letter case exactly, and \`lode ls\` lists the root.`, {
      exitCode: EXIT.usage,
      code: 'not_found',
      details: { path: prefix, branch, status: error.status },
    });
  };
}
