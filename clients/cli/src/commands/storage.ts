import type { Command } from 'commander';
import { LodeApiError, type ExtensionUsage, type Obliteration, type ObliterateTarget, type Usage } from '@lode/sdk';
import type { Context } from '../context.ts';
import { CliError, EXIT, refusedInput } from '../failure.ts';
import { formatBytes, percentUsed, plural, type Output } from '../output.ts';
import { optionalWorkspace, resolveFiles } from '../resolve.ts';
import { ask, canAsk } from '../prompt.ts';
import { connected } from '../run.ts';
import { versionNumber } from './option-values.ts';
import { orgUsageLines } from './quota.ts';

export function storageCommands(program: Command): void {
  program
    .command('usage')
    .description("the project's storage: logical and stored bytes, versions, objects, quota, and what the collector will free")
    .option('--prefix <path>', 'add the figures of a folder or file (in a workspace: a path on disk)')
    .option('--by-extension', 'add a table by file extension (within --prefix when given)')
    .option('--org', "the organization's storage instead: its projects added up, each project's, its quota (owners and admins)")
    .action(
      connected(async ({ client, out, signal }, options: { prefix?: string; byExtension?: boolean; org?: boolean }) => {
        if (options.org) {
          const org = await client.orgUsage({ signal }).catch(refusedInput);
          return out.result(org, () => orgUsageLines(org));
        }
        const workspace = options.prefix === undefined ? null : await optionalWorkspace();
        const prefix = options.prefix === undefined ? undefined : workspace ? workspace.projectPath(options.prefix) : options.prefix.replace(/^\/+/, '');
        const usage = await client.usage({ prefix: prefix || undefined, byExtension: options.byExtension }, { signal }).catch(refusedInput);
        out.result(usage, () => usageLines(usage));
      }),
    );

  program
    .command('obliterate')
    .description("remove a file's versions for good (org owners and admins): shows the plan, then asks before removing")
    .argument('<path>', 'the file (every version of it unless --version names one)')
    .option('--version <n>', 'only this version', versionNumber)
    .option('--dry-run', 'print what would be removed and freed, and remove nothing')
    .option('-y, --yes', 'remove without asking (needed when not run in a terminal)')
    .action(
      connected(async (ctx, file: string, options: { version?: number; dryRun?: boolean; yes?: boolean }) => {
        const { client, out, signal } = ctx;
        const target = await obliterateTarget(ctx, file, options.version);
        const plan = await client.obliterate(target, { dryRun: true }, { signal }).catch(explainRefusal(file));
        if (options.dryRun || plan.confirmToken === null) return out.result(plan, () => planLines(plan));
        const removes = `obliterating ${plan.path} removes ${plural(plan.versionCount, 'version')}`;
        const question = `Remove ${plural(plan.versionCount, 'version')} of ${plan.path} for good? Type "yes": `;
        if (!options.yes && !(await confirmRemoval(out, removes, plan, planLines(plan), question))) {
          return out.result({ ...plan, cancelled: true }, () => ['Cancelled: nothing was removed.']);
        }
        const done = await client.obliterate(target, { confirmToken: plan.confirmToken }, { signal }).catch(explainRefusal(file));
        out.result(done, () => planLines(done));
      }),
    );
}

/**
 * A path alone goes as is (the server matches it in any letter case, deleted files included); a
 * version is named with its file's id, looked up on main.
 */
async function obliterateTarget({ client, signal }: Context, file: string, version: number | undefined): Promise<ObliterateTarget> {
  const workspace = await optionalWorkspace();
  if (version === undefined) return { path: workspace ? workspace.projectPath(file) : file.replace(/^\/+/, '') };
  const [named] = await resolveFiles(client, workspace, [file], undefined, signal);
  return { fileId: named.fileId, version };
}

/**
 * Asks on a terminal before removing versions for good: the plan, then the question, answered "yes"
 * to go on. Elsewhere (or with --json) nobody can answer: refused, saying to check the plan with
 * --dry-run and run again with --yes.
 */
export async function confirmRemoval(out: Output, removes: string, plan: object, lines: readonly string[], question: string): Promise<boolean> {
  if (!canAsk(out.json))
    throw new CliError(
      `Nothing was removed: ${removes} for good, so it asks for confirmation, and this is not a terminal (or --json is on). Check the plan with --dry-run, then run again with --yes.`,
      { exitCode: EXIT.usage, code: 'confirmation_required', details: { plan } },
    );
  for (const line of lines) out.note(line);
  return (await ask(question)).toLowerCase() === 'yes';
}

/** The refusals an obliteration meets, each as what to do next. */
export function explainRefusal(file: string): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof LodeApiError)) throw error;
    const details = { ...error.body, status: error.status, requestId: error.requestId };
    if (error.code === 'conflict') {
      const why =
        error.body.reason === 'expired'
          ? 'its confirmation expired (a dry run is good for 15 minutes)'
          : 'the file’s versions changed since the dry run (an upload was confirmed meanwhile)';
      throw new CliError(`Nothing was removed: ${why}. Run \`lode obliterate ${file}\` again to see the new plan.`, {
        exitCode: EXIT.conflict,
        code: 'conflict',
        details,
      });
    }
    if (error.code === 'forbidden')
      throw new CliError(`Nothing was removed: ${error.message}. Only the organization's owners and admins may obliterate.`, { code: error.code, details });
    if (error.code === 'not_found')
      throw new CliError(`No file ${file} (or no such version of it) in the project: \`lode history ${file}\` lists its versions.`, {
        exitCode: EXIT.usage,
        code: error.code,
        details,
      });
    refusedInput(error);
  };
}

/** A dry run's plan, or what a run removed. */
export function planLines(plan: Obliteration): string[] {
  if (plan.versionCount === 0) return [`Nothing to obliterate: ${plan.path} has no live version.`];
  const listed = plan.versions.map((v) => `  v${v.version}  ${v.createdAt}  ${formatBytes(v.size)}  ${v.sha256.slice(0, 12)}`);
  const more = plan.versionsTruncated ? [`  … and ${plan.versionCount - plan.versions.length} more`] : [];
  const heading = plan.dryRun
    ? `Would obliterate ${plural(plan.versionCount, 'version')} of ${plan.path} (${formatBytes(plan.logicalBytes)}):`
    : `Obliterated ${plural(plan.versionCount, 'version')} of ${plan.path} (${formatBytes(plan.logicalBytes)}) at ${plan.obliteratedAt}:`;
  const freed = plan.dryRun ? 'to free' : 'freed';
  return [
    heading,
    ...listed,
    ...more,
    `Storage ${freed}: ${formatBytes(plan.freedBytes)} in ${plural(plan.freedObjects, 'object')}, deleted by the collector after its grace; ${plural(plan.keptObjects, 'object')} kept (shared with other versions, or Git LFS).`,
    ...(plan.dryRun ? [`Nothing was removed. Confirm before ${plan.expiresAt}: lode obliterate ${plan.path} --yes`] : []),
  ];
}

export function usageLines(usage: Usage): string[] {
  const quota = usage.quota
    ? `${formatBytes(usage.storedBytes)} of ${formatBytes(usage.quota.bytes)} (${percentUsed(usage.storedBytes, usage.quota.bytes)} % used, ${usage.quota.source} quota)`
    : 'none';
  const lines = [
    `Storage of project ${usage.projectId}`,
    `  logical      ${formatBytes(usage.logicalBytes)} in ${plural(usage.versions, 'version')} (every version's size)`,
    `  stored       ${formatBytes(usage.storedBytes)} in ${plural(usage.objects, 'object')} (content kept once, deduplicated)`,
    `  quota        ${quota}`,
    `  collectable  ${formatBytes(usage.collectable.bytes)} in ${plural(usage.collectable.objects, 'object')} (obliterated, deleted after the collector's grace)`,
  ];
  const p = usage.byPrefix;
  if (p)
    lines.push(
      `Under ${p.prefix}: ${plural(p.files, 'file')}, ${plural(p.versions, 'version')}, logical ${formatBytes(p.logicalBytes)}, stored ${formatBytes(p.storedBytes)} in ${plural(p.objects, 'object')}`,
    );
  if (usage.byExtension) lines.push(...extensionTable(usage.byExtension));
  return lines;
}

/** One row an extension, columns padded; "(none)" for names without one. */
export function extensionTable(rows: readonly ExtensionUsage[]): string[] {
  if (rows.length === 0) return ['By extension: no files'];
  const cells = [
    ['extension', 'files', 'versions', 'logical', 'stored'],
    ...rows.map((r) => [
      r.extension === '' ? '(none)' : `.${r.extension}`,
      `${r.files}`,
      `${r.versions}`,
      formatBytes(r.logicalBytes),
      formatBytes(r.storedBytes),
    ]),
  ];
  const widths = cells[0].map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return ['By extension:', ...cells.map((row) => `  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')}`)];
}
