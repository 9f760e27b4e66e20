import { downloadFiles } from '@lode/sdk';
import type { Context } from './context.ts';
import { CliError, EXIT } from './failure.ts';
import { plural } from './output.ts';
import { resolveMultipartThreshold } from './commands/option-values.ts';
import { unchangedOf } from './listed-files.ts';
import { hashEntries, scanWorkspace } from './scan.ts';
import { inScope } from './status.ts';
import type { SyncedFile, Workspace } from './workspace.ts';

export interface RevertReport {
  /** Put back as last synced: edited here, or deleted here. */
  reverted: { path: string; version: number }[];
  /** Already as last synced. */
  unchanged: string[];
  /** Files this workspace never synced (new here): left alone. */
  notInLode: string[];
}

/**
 * Puts back the version this workspace last synced of each file in `scopes` (files or folders): a
 * file edited or deleted here gets that version's bytes, verified against its SHA-256 and renamed into
 * place (the SDK's download flow), so a revert cut short leaves each file whole, old or new. A file
 * never synced here has no such version and is left alone; the server's other versions are not
 * looked at, nor is anything recorded: what is put back is what status compares with already.
 */
export async function revert(ctx: Context, workspace: Workspace, scopes: string[]): Promise<RevertReport> {
  const scanned = await scanWorkspace(workspace);
  // The files out of scope keep their digests: a revert of one file is no reason to read the rest again.
  const local = await hashEntries(
    workspace,
    scanned.files.filter((e) => inScope(e.path, scopes)),
    ctx.signal,
    resolveMultipartThreshold(undefined),
    unchangedOf(scanned.files.filter((e) => !inScope(e.path, scopes))),
  );
  const files = workspace.state.files;
  const synced = files
    .keys()
    .filter((path) => inScope(path, scopes) && !scanned.ignores(path))
    .map((path): [string, SyncedFile] => [path, files.get(path) as SyncedFile]);
  const named = [...local.map((e) => e.path), ...synced.map(([path]) => path)];
  const unmatched = scopes.filter((scope) => !named.some((path) => inScope(path, [scope])));
  if (unmatched.length > 0) {
    throw new CliError(`${unmatched.join(', ')}: no such file or folder in the workspace, nor one it has synced (misspelt, or left alone by .lodeignore).`, {
      exitCode: EXIT.usage,
      code: 'no_such_path',
      details: { paths: unmatched },
    });
  }

  const onDisk = new Map(local.map((e) => [e.path, e]));
  const report: RevertReport = { reverted: [], unchanged: [], notInLode: local.filter((e) => !files.has(e.path)).map((e) => e.path) };
  const targets = synced.flatMap(([path, base]) => {
    const here = onDisk.get(path);
    if (here?.digest.sha256 === base.sha256) {
      report.unchanged.push(path);
      return [];
    }
    return [{ fileId: base.fileId, version: base.version, dest: here?.localPath ?? workspace.file(path) }];
  });
  const result = await downloadFiles(ctx.client, targets, {
    branch: workspace.state.branch,
    signal: ctx.signal,
    multipartThreshold: resolveMultipartThreshold(undefined),
  });
  report.reverted = result.done.map((d) => ({ path: d.path, version: d.version }));
  if (result.failures.length > 0) {
    throw new CliError(
      `${plural(result.failures.length, 'file')} could not be put back (run the revert again to retry):\n${result.failures.map((f) => `  ${f.path}: ${f.message}`).join('\n')}`,
      {
        code: 'download_failed',
        details: { ...report, failures: result.failures },
      },
    );
  }
  return report;
}
