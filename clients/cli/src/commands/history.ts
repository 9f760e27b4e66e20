import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { allPages, downloadFiles, LodeApiError, type FileVersion, type LodeClient, type RestoreResponse } from '@lode/sdk';
import { CliError, EXIT, refusedInput } from '../failure.ts';
import { formatBytes, plural } from '../output.ts';
import { optionalWorkspace, resolveFiles } from '../resolve.ts';
import { connected } from '../run.ts';
import type { Workspace } from '../workspace.ts';
import { limitOption, versionNumber } from './option-values.ts';

export function historyCommands(program: Command): void {
  program
    .command('log')
    .description("a branch's commits, newest first")
    .option('--branch <name>', 'the branch (default: the workspace’s, else main)')
    .addOption(limitOption(20))
    .action(
      connected(async ({ client, out, signal }, options: { branch?: string; limit: number }) => {
        const branch = options.branch ?? (await optionalWorkspace())?.state.branch;
        const page = await client.listCommits({ branch, limit: options.limit }, { signal }).catch(refusedInput);
        out.result(page, () =>
          page.data.length === 0
            ? [`No commits on ${branch ?? 'main'} yet.`]
            : page.data.map(
                (c) =>
                  `#${c.sequenceNum}  ${c.createdAt}  ${c.authorName}  ${c.kind === 'commit' ? '' : `[${c.kind}] `}${c.message} (${plural(c.fileCount, 'file')})`,
              ),
        );
      }),
    );

  program
    .command('history')
    .description("a file's versions on main, newest first")
    .argument('<path>', 'the file')
    .addOption(limitOption(50))
    .action(
      connected(async ({ client, out, signal }, file: string, options: { limit: number }) => {
        const workspace = await optionalWorkspace();
        const [named] = await resolveFiles(client, workspace, [file], undefined, signal);
        const page = await client.listVersions(named.fileId, { limit: options.limit }, { signal });
        const onBranch =
          workspace && workspace.state.branch !== 'main' ? ` (this workspace is on ${workspace.state.branch}; history lists main's versions)` : '';
        out.result({ ...named, ...page }, () => [
          `${named.path} on main${onBranch}`,
          ...(page.data.length === 0 ? ['  no version on main'] : page.data.map(versionLine)),
        ]);
      }),
    );

  program
    .command('restore')
    .description('bring files back to an earlier version (one new commit on main; nothing is overwritten)')
    .argument('<paths...>', 'the files')
    .requiredOption('--to <version>', 'the version to bring back', versionNumber)
    .action(
      connected(async ({ client, out, signal }, paths: string[], options: { to: number }) => {
        const workspace = await optionalWorkspace();
        refuseRestoreOffMain(workspace);
        const files = await resolveFiles(client, workspace, paths, undefined, signal);
        const names = new Map(files.map((f) => [f.fileId, f.path]));
        const answer = await client
          .restore(
            files.map((f) => ({ fileId: f.fileId, toVersion: options.to })),
            { signal },
          )
          .catch((error: unknown) => {
            throw nothingRestored(error, names) ?? error;
          });
        out.result(answer, () => [
          `Restore commit #${answer.sequenceNum}: ${answer.restored.map((r) => `${names.get(r.fileId)} is now v${r.newVersion}`).join(', ')}`,
          ...answer.skipped.map((s) => `skipped ${names.get(s.fileId)}: ${s.message}`),
          'Run `lode pull` to bring the restored content into this workspace.',
        ]);
      }),
    );

  program
    .command('download')
    .description('download one version of a file (verified against its SHA-256)')
    .argument('<path>', 'the project path')
    .requiredOption('--version <n>', 'the version', versionNumber)
    .option('-o, --output <file>', 'where to write it (default: the file name, with .v<N>; -: stdout, once verified)')
    .option('--branch <name>', 'the branch whose lineage holds the version (default main)')
    .action(
      connected(async ({ client, out, signal }, file: string, options: { version: number; output?: string; branch?: string }) => {
        const workspace = await optionalWorkspace();
        const projectPath = workspace ? workspace.projectPath(file) : file;
        const toStdout = options.output === '-';
        if (toStdout && out.json)
          throw new CliError('-o - writes the file on stdout, where --json writes its document: use one or the other.', {
            exitCode: EXIT.usage,
            code: 'usage',
          });
        // To stdout through a temporary file: no byte reaches the reader before its SHA-256 is checked.
        const scratch = toStdout ? await mkdtemp(path.join(tmpdir(), 'lode-download-')) : undefined;
        const dest = scratch ? path.join(scratch, 'file') : path.resolve(options.output ?? `${path.basename(projectPath)}.v${options.version}`);
        try {
          const result = await downloadFiles(client, [{ path: projectPath, version: options.version, dest }], { branch: options.branch, signal }).catch(
            refusedInput,
          );
          const failure = result.failures[0];
          if (failure?.code === 'version_not_found') throw await noSuchVersion(client, workspace, file, options, signal);
          if (failure)
            throw new CliError(`${failure.path}: ${failure.message}`, {
              code: failure.code,
              exitCode: failure.code === 'transfer_failed' ? EXIT.error : EXIT.usage,
            });
          const done = result.done[0];
          const line = `${done.path} v${done.version} (${formatBytes(done.size)}, sha256 ${done.sha256.slice(0, 12)}…)`;
          if (!scratch) return out.result(done, () => [`Wrote ${line} to ${dest}`]);
          await pipeline(createReadStream(dest), process.stdout, { end: false });
          out.note(`Wrote ${line} to stdout`);
        } finally {
          if (scratch) await rm(scratch, { recursive: true, force: true });
        }
      }),
    );
}

/**
 * One version; a purged one reads as removed, with who removed it (the retention job: nobody), when
 * and why, and for retention the rule that removed it (its bytes are gone).
 */
export function versionLine(v: FileVersion): string {
  const line = `  v${v.version}  ${v.createdAt}  ${v.uploaderName}  ${formatBytes(v.size)}  ${v.sha256.slice(0, 12)}`;
  if (!v.purged) return line;
  const { at, by, reason, rule } = v.purged;
  const why = rule === undefined ? reason : `${reason} rule ${rule}`;
  return `${line}  [removed ${at} by ${by?.userName ?? 'the retention job'}: ${why}]`;
}

/**
 * A restore makes its commit on main (docs/api.md, Restore): run from a workspace on another branch
 * it would change main, not the branch the user is working on.
 */
function refuseRestoreOffMain(workspace: Workspace | null): void {
  const branch = workspace?.state.branch;
  if (!branch || branch === 'main') return;
  throw new CliError(
    `lode restore works on main, and this workspace is on branch "${branch}". Run it from a workspace on main, or bring an old version to this branch with \`lode download PATH --version N -o PATH\` and push it.`,
    { exitCode: EXIT.usage, code: 'restore_on_main_only', details: { branch } },
  );
}

/** Versions named in a refusal before the rest are left to `lode history`. */
const VERSIONS_LISTED = 20;

/** A version the file does not have: the refusal lists those it has (main's, which the API lists), newest first. */
async function noSuchVersion(
  client: LodeClient,
  workspace: Workspace | null,
  file: string,
  options: { version: number; branch?: string },
  signal: AbortSignal,
): Promise<CliError> {
  const [named] = await resolveFiles(client, workspace, [file], options.branch, signal);
  const versions = (await allPages((cursor) => client.listVersions(named.fileId, { limit: 200, cursor }, { signal }))).map((v) => v.version);
  const branch = options.branch ?? 'main';
  const listed =
    versions
      .slice(0, VERSIONS_LISTED)
      .map((v) => `v${v}`)
      .join(', ') + (versions.length > VERSIONS_LISTED ? `, … and ${versions.length - VERSIONS_LISTED} more` : '');
  const known = versions.length === 0 ? 'It has no version on main' : `Its versions on main: ${listed}`;
  const elsewhere = branch === 'main' ? '' : ` (those committed on ${branch} since it was forked are not listed)`;
  return new CliError(
    `${named.path} has no version ${options.version} on ${branch}. ${known}${elsewhere}; \`lode history ${named.path}\` shows them with dates and authors.`,
    {
      exitCode: EXIT.usage,
      code: 'version_not_found',
      details: { path: named.path, fileId: named.fileId, version: options.version, versions },
    },
  );
}

/** The API's nothing_to_restore names files by id: the CLI names them by path, each with its reason. */
function nothingRestored(error: unknown, names: ReadonlyMap<string, string>): CliError | undefined {
  if (!(error instanceof LodeApiError) || error.code !== 'nothing_to_restore') return undefined;
  const skipped = (error.body.skipped as RestoreResponse['skipped'] | undefined) ?? [];
  const lines = skipped.map((s) => `  ${names.get(s.fileId) ?? s.fileId}: ${s.message}`);
  return new CliError(`Nothing was restored:\n${lines.join('\n')}\n\`lode history PATH\` lists the versions each file has.`, {
    code: error.code,
    details: { skipped: skipped.map((s) => ({ ...s, path: names.get(s.fileId) })), status: error.status, requestId: error.requestId },
  });
}
