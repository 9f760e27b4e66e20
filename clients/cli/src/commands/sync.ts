import { Option, type Command } from 'commander';
import { colors, formatBytes, plural } from '../output.ts';
import { EXIT } from '../failure.ts';
import { pull } from '../pull.ts';
import { push } from '../push.ts';
import { revert } from '../revert.ts';
import { connected } from '../run.ts';
import { groupByStatus, inScope, workspaceStatus, type FileStatus, type WorkspaceStatus } from '../status.ts';
import { Workspace } from '../workspace.ts';
import { batchSizeOption, commitMessage, concurrencyOption, multipartThresholdOption, resolveMultipartThreshold } from './option-values.ts';

const LABELS: Record<FileStatus, string> = {
  conflict: 'conflict (changed here and remotely: resolve before pushing)',
  modified: 'modified (push uploads)',
  local_only: 'new (push uploads)',
  deleted_local: 'deleted here (push records the deletion)',
  outdated: 'outdated (pull downloads)',
  missing: 'missing (pull downloads)',
  deleted_remote: 'deleted remotely (pull removes)',
  up_to_date: 'up to date',
};

export function syncCommands(program: Command): void {
  program
    .command('status')
    .description('how each file stands against the branch (the 7 sync statuses, grouped)')
    .option('--branch <name>', 'the branch to compare with (default: the workspace’s)')
    .option('--all', 'list up-to-date files too')
    .option(
      '--full',
      'walk every folder and send every file to the server, instead of asking the file monitor and the server what changed since the last status',
    )
    .addOption(multipartThresholdOption())
    .action(
      connected(async ({ client, out, signal }, options: { branch?: string; all?: boolean; full?: boolean; multipartThreshold?: number }) => {
        const workspace = await Workspace.find();
        const branch = options.branch ?? workspace.state.branch;
        // Large files are hashed for the multipart upload a push would make, and cached so.
        const multipartThreshold = resolveMultipartThreshold(options.multipartThreshold);
        const status = await workspaceStatus(client, workspace, branch, signal, { multipartThreshold, full: options.full });
        await workspace.save();
        if (status.monitorProblem) out.note(colors.yellow(`The file monitor did not answer (${status.monitorProblem}): the workspace was walked.`));
        // Up-to-date files are listed only on demand: their entries are made for --all and --json alone.
        const groups = groupByStatus(options.all ? status.entries : status.changes);
        const counts = Object.fromEntries([...groups].map(([s, list]) => [s, s === 'up_to_date' ? status.upToDate : list.length]));
        const { caseCollisions, unstorable } = status;
        const followed = workspace.state.branch;
        out.result(
          {
            branch,
            workspaceBranch: followed,
            headSequenceNum: status.head.headSequenceNum,
            latestCommitSeq: status.latestCommitSeq,
            counts,
            caseCollisions,
            unstorable,
            nestedWorkspaces: status.nested,
            listedBy: status.listedBy,
            // The server's row as it is where the workspace reads it alike, as nearly every file is.
            get files() {
              return status.entries.map((e) => (e.row.status === e.status ? e.row : { ...e.row, status: e.status }));
            },
          },
          () => {
            const lines = [
              branch === followed
                ? `On branch ${branch} (${describeHead(status)})`
                : `Compared with branch ${branch} (${describeHead(status)}); this workspace is on ${followed}`,
            ];
            if (caseCollisions.length > 0) {
              lines.push(
                colors.yellow(`names that differ only in letter case, one file to Lode (push refuses them; rename all but one): ${caseCollisions.length}`),
              );
              lines.push(...caseCollisions.map((group) => `  ${group.join(', ')}`));
            }
            const here = unstorable.filter((u) => !u.remote);
            const there = unstorable.filter((u) => u.remote);
            if (here.length > 0) {
              lines.push(colors.yellow(`names Lode cannot store, left out (push refuses them; rename them or list them in .lodeignore): ${here.length}`));
              lines.push(...here.map((u) => `  ${JSON.stringify(u.path)}: ${u.problem}`));
            }
            if (there.length > 0) {
              lines.push(
                colors.yellow(`files stored under names Lode no longer takes, not downloaded (whoever has one renames it and pushes): ${there.length}`),
              );
              lines.push(...there.map((u) => `  ${JSON.stringify(u.path)} (file ${u.fileId}): ${u.problem}`));
            }
            if (status.nested.length > 0) lines.push(`workspaces inside this one, left alone: ${status.nested.join(', ')}`);
            for (const [s, list] of groups) {
              if (list.length === 0 || (s === 'up_to_date' && !options.all)) continue;
              lines.push(colors.bold(`${LABELS[s]}: ${list.length}`), ...list.slice(0, 200).map((e) => `  ${e.path}`));
              if (list.length > 200) lines.push(`  … and ${list.length - 200} more (--json lists all)`);
            }
            if (!options.all) lines.push(`${plural(counts.up_to_date, 'file')} up to date.`);
            return lines;
          },
        );
        return groups.get('conflict')?.length ? EXIT.conflict : EXIT.ok;
      }),
    );

  program
    .command('push')
    .description('upload modified and new files, record deletions, in one commit (resumes after an interruption)')
    .argument('[paths...]', 'files or folders to push (default: everything)')
    .addOption(new Option('-m, --message <message>', 'the commit message').argParser(commitMessage).makeOptionMandatory())
    .option('--branch <name>', 'the branch to commit to (default: the workspace’s)')
    .addOption(concurrencyOption())
    .addOption(batchSizeOption())
    .addOption(multipartThresholdOption())
    .action(
      connected(
        async (ctx, paths: string[], options: { message: string; branch?: string; concurrency: number; batchSize: number; multipartThreshold?: number }) => {
          const workspace = await Workspace.find();
          const scopes = paths.map((p) => workspace.projectPath(p));
          const report = await push(ctx, workspace, {
            message: options.message,
            branch: options.branch,
            scopes,
            concurrency: options.concurrency,
            batchSize: options.batchSize,
            multipartThreshold: resolveMultipartThreshold(options.multipartThreshold),
          });
          ctx.out.result(report, () => {
            const lines: string[] = [];
            if (report.resumed)
              lines.push(`Finished the interrupted push: commit #${report.resumed.sequenceNum} (${plural(report.resumed.fileCount, 'file')}).`);
            if (!report.commit) lines.push('Nothing to push.');
            else {
              lines.push(
                `Committed #${report.commit.sequenceNum} on ${report.commit.branch}: ${plural(report.commit.fileCount, 'file')} — ${report.uploaded} uploaded (${formatBytes(report.bytes)}), ${report.deduplicated} already stored, ${report.reused} from the interrupted push, ${report.deleted} deleted.`,
              );
              if (report.partsResumed > 0)
                lines.push(`Resumed the interrupted uploads: ${plural(report.partsResumed, 'part')} already stored, ${report.partsUploaded} sent now.`);
            }
            return [...lines, ...switched(report.switchedFrom, workspace.state.branch)];
          });
        },
      ),
    );

  program
    .command('pull')
    .description('download outdated and missing files, remove files deleted remotely; never overwrites local edits')
    .argument('[paths...]', 'files or folders to pull (default: everything)')
    .option('--branch <name>', 'the branch to pull from (default: the workspace’s)')
    .addOption(concurrencyOption())
    .addOption(multipartThresholdOption())
    .action(
      connected(async (ctx, paths: string[], options: { branch?: string; concurrency: number; multipartThreshold?: number }) => {
        const workspace = await Workspace.find();
        const scopes = paths.map((p) => workspace.projectPath(p));
        const report = await pull(ctx, workspace, {
          branch: options.branch,
          scopes,
          concurrency: options.concurrency,
          multipartThreshold: resolveMultipartThreshold(options.multipartThreshold),
        });
        ctx.out.result(report, () => [
          `Downloaded ${plural(report.downloaded, 'file')} (${formatBytes(report.bytes)}), removed ${report.removed}.`,
          ...(report.partsResumed > 0
            ? [`Resumed interrupted downloads: ${plural(report.partsResumed, 'range')} already on disk, ${report.partsDownloaded} fetched now.`]
            : []),
          ...(report.partialsRemoved ? [`Cleared ${plural(report.partialsRemoved, 'partial download')} an interrupted pull had left.`] : []),
          ...(report.kept.length ? [`${plural(report.kept.length, 'local edit')} kept (push them): ${report.kept.slice(0, 20).join(', ')}`] : []),
          ...(report.conflicts.length
            ? [
                colors.yellow(
                  `${plural(report.conflicts.length, 'conflict')} left untouched (changed here and remotely): ${report.conflicts.slice(0, 20).join(', ')}`,
                ),
                'Move your copy aside and pull again to take theirs, or keep yours and push once you have their version merged.',
              ]
            : []),
          ...switched(report.switchedFrom, workspace.state.branch),
        ]);
        return report.conflicts.length > 0 && report.conflicts.some((c) => inScope(c, scopes)) ? EXIT.conflict : EXIT.ok;
      }),
    );

  program
    .command('revert')
    .description('put back the version this workspace last synced of each file (edited or deleted here); new files are left alone')
    .argument('<paths...>', 'files or folders to revert')
    .action(
      connected(async (ctx, paths: string[]) => {
        const workspace = await Workspace.find();
        const report = await revert(
          ctx,
          workspace,
          paths.map((p) => workspace.projectPath(p)),
        );
        ctx.out.result(report, () => [
          ...report.reverted.map((r) => `reverted ${r.path} (v${r.version}, as last synced)`),
          ...report.notInLode.map((p) => `left ${p} alone: not in Lode (never pushed or pulled here); delete it yourself if you do not want it`),
          ...(report.reverted.length === 0 && report.notInLode.length === 0 ? ['Nothing to revert: no change here since the last sync.'] : []),
        ]);
      }),
    );
}

/** The branch's own latest commit: the project's latest may be another branch's. */
function describeHead(status: WorkspaceStatus): string {
  return status.head.headSequenceNum === null ? 'no commits yet' : `its latest commit: #${status.head.headSequenceNum}`;
}

/** Said when a push or pull moved the workspace to another branch (push.ts, pull.ts). */
function switched(from: string | null, to: string): string[] {
  return from === null
    ? []
    : [`This workspace is now on branch ${to} (it was on ${from}): status, push and pull use ${to}. \`lode pull --branch ${from}\` takes it back.`];
}
