import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { LodeApiError, type RetentionPlan, type RetentionRule, type RetentionSettings } from '@lode/sdk';
import { CliError, EXIT, refusedInput } from '../failure.ts';
import { formatBytes, plural } from '../output.ts';
import { connected } from '../run.ts';
import { wholeNumber } from './option-values.ts';
import { confirmRemoval } from './storage.ts';

/** The server's bounds (docs/api.md, Retention): a count of versions, a number of days. */
const keepLast = wholeNumber(1, 1_000_000);
const keepDays = wholeNumber(1, 36_500);

export function retentionCommands(program: Command): void {
  const retention = program
    .command('retention')
    .description("the project's retention rules: which old versions of which paths are removed on their own (show them, or --dry-run)")
    .option('--dry-run', 'print what the rules would remove now, and remove nothing')
    .action(
      connected(async ({ client, out, signal }, options: { dryRun?: boolean }) => {
        if (options.dryRun) {
          const plan = await client.applyRetention({ dryRun: true }, { signal }).catch(explainRefusal);
          return out.result(plan, () => retentionPlanLines(plan));
        }
        const settings = await client.retention({ signal }).catch(refusedInput);
        out.result(settings, () => rulesLines(settings));
      }),
    );

  retention
    .command('set')
    .description('add or change the rule for a glob (org owners and admins), or replace every rule with those of a JSON file')
    .option('--glob <glob>', 'paths the rule applies to, any letter case: * within a folder, ** across folders (Levels/**/*.umap)')
    .option('--keep-last <n>', "keep each file's newest n versions", keepLast)
    .option('--keep-days <d>', 'keep the versions made in the last d days', keepDays)
    .option('--remove', 'remove the rule for --glob instead')
    .option('--file <path>', 'replace every rule with the file\'s: { "rules": [{ "glob": …, "keepLast": …, "keepDays": … }] } ([] removes them all)')
    .action(
      connected(async ({ client, out, signal }, options: { glob?: string; keepLast?: number; keepDays?: number; remove?: boolean; file?: string }) => {
        const rules =
          options.file === undefined ? editedRules((await client.retention({ signal }).catch(refusedInput)).rules, options) : await rulesFile(options.file);
        const settings = await client.setRetention(rules, { signal }).catch(explainRefusal);
        out.result(settings, () => rulesLines(settings));
      }),
    );

  retention
    .command('run')
    .description('remove now what the rules remove (org owners and admins): shows the plan, then asks before removing')
    .option('-y, --yes', 'remove without asking (needed when not run in a terminal)')
    .action(
      connected(async ({ client, out, signal }, options: { yes?: boolean }) => {
        const plan = await client.applyRetention({ dryRun: true }, { signal }).catch(explainRefusal);
        if (plan.confirmToken === null) return out.result(plan, () => retentionPlanLines(plan));
        const removes = `the retention rules remove ${plural(plan.versionCount, 'version')}`;
        const question = `Remove ${plural(plan.versionCount, 'version')} for good? Type "yes": `;
        if (!options.yes && !(await confirmRemoval(out, removes, plan, retentionPlanLines(plan), question))) {
          return out.result({ ...plan, cancelled: true }, () => ['Cancelled: nothing was removed.']);
        }
        const done = await client.applyRetention({ confirmToken: plan.confirmToken }, { signal }).catch(explainRefusal);
        out.result(done, () => retentionPlanLines(done));
      }),
    );
}

/** The rules with the one for `--glob` added, changed or removed. */
function editedRules(rules: readonly RetentionRule[], options: { glob?: string; keepLast?: number; keepDays?: number; remove?: boolean }): RetentionRule[] {
  const { glob } = options;
  if (glob === undefined) throw new CliError('Name the rule with --glob (or give every rule with --file).', { exitCode: EXIT.usage, code: 'usage' });
  const others = rules.filter((rule) => rule.glob !== glob);
  if (options.remove) return others;
  if (options.keepLast === undefined && options.keepDays === undefined)
    throw new CliError('A rule keeps by --keep-last, --keep-days or both.', { exitCode: EXIT.usage, code: 'usage' });
  return [
    ...others,
    {
      glob,
      ...(options.keepLast === undefined ? {} : { keepLast: options.keepLast }),
      ...(options.keepDays === undefined ? {} : { keepDays: options.keepDays }),
    },
  ];
}

/** A rules file: `{ "rules": [...] }` or the list alone; the server checks each rule. */
async function rulesFile(path: string): Promise<RetentionRule[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new CliError(`Cannot read the rules in ${path}: ${(error as Error).message}`, { exitCode: EXIT.usage, code: 'usage' });
  }
  const rules = Array.isArray(parsed) ? parsed : (parsed as { rules?: unknown })?.rules;
  if (!Array.isArray(rules)) throw new CliError(`${path} holds no list of rules: write { "rules": [...] }.`, { exitCode: EXIT.usage, code: 'usage' });
  return rules as RetentionRule[];
}

/** A refused dry run, set or run, told by the error's code and details (never by its message's words). */
export function explainRefusal(error: unknown): never {
  if (!(error instanceof LodeApiError)) throw error;
  const details = { ...error.body, status: error.status, requestId: error.requestId };
  if (error.code === 'conflict') {
    const why =
      error.body.reason === 'expired' ? 'its confirmation expired (a dry run is good for 15 minutes)' : 'what the rules remove changed since the dry run';
    // A run that stopped part way keeps what it removed before the plan changed.
    const removed = typeof error.body.removedVersions === 'number' ? error.body.removedVersions : 0;
    const done = removed === 0 ? 'Nothing was removed' : `Removed ${plural(removed, 'version')} of the plan, then stopped`;
    throw new CliError(`${done}: ${why}. Run \`lode retention run\` again to see the new plan.`, { exitCode: EXIT.conflict, code: 'conflict', details });
  }
  if (error.code === 'forbidden')
    throw new CliError(`${error.message}. Only the organization's owners and admins may set or apply retention rules.`, { code: error.code, details });
  refusedInput(error);
}

export function rulesLines(settings: RetentionSettings): string[] {
  if (settings.rules.length === 0) return ['No retention rules: every version is kept.'];
  const keeps = (rule: RetentionRule) =>
    [rule.keepLast === undefined ? '' : `the newest ${plural(rule.keepLast, 'version')}`, rule.keepDays === undefined ? '' : `${plural(rule.keepDays, 'day')}`]
      .filter(Boolean)
      .join(' and ');
  return [
    `Retention rules (set by ${settings.updatedBy?.userName ?? '?'} at ${settings.updatedAt}; last applied ${settings.lastRunAt ?? 'never'}):`,
    ...settings.rules.map((rule) => `  ${rule.glob}  keeps ${keeps(rule)}`),
    'A version goes only when every rule matching its path lets it go; branch tips, staged versions and locked files stay.',
  ];
}

/** A dry run's plan, or what a run removed. */
export function retentionPlanLines(plan: RetentionPlan): string[] {
  const locked = plan.lockedFiles === 0 ? [] : [`${plural(plan.lockedFiles, 'locked file')} left for a later run.`];
  if (plan.versionCount === 0) return ['Nothing to remove: the rules keep every live version.', ...locked];
  const listed = plan.versions.map((v) => `  ${v.path}  v${v.version}  ${v.createdAt}  ${formatBytes(v.size)}  (rule ${v.rule})`);
  const more = plan.versionsTruncated ? [`  … and ${plan.versionCount - plan.versions.length} more`] : [];
  const what = `${plural(plan.versionCount, 'version')} of ${plural(plan.fileCount, 'file')} (${formatBytes(plan.logicalBytes)})`;
  return [
    plan.dryRun ? `The retention rules would remove ${what}:` : `Removed ${what} at ${plan.appliedAt}:`,
    ...listed,
    ...more,
    `Storage ${plan.dryRun ? 'to free' : 'freed'}: ${formatBytes(plan.freedBytes)} in ${plural(plan.freedObjects, 'object')}, deleted by the collector after its grace; ${plural(plan.keptObjects, 'object')} kept (shared with other versions, or Git LFS).`,
    ...locked,
    ...(plan.dryRun ? [`Nothing was removed. To remove it: lode retention run --yes`] : []),
  ];
}
