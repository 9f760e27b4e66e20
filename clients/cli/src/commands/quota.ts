import type { Command } from 'commander';
import { LodeApiError, type LodeClient, type OrgQuotaSettings, type OrgUsage, type QuotaSettings, type Usage } from '@lode/sdk';
import { refusedInput } from '../failure.ts';
import { formatBytes, percentUsed, plural } from '../output.ts';
import { connected } from '../run.ts';
import { quotaValue } from './option-values.ts';

/** `lode quota`: the project's and its org's quotas and what they hold; `lode quota set` changes one. */
export function quotaCommands(program: Command): void {
  const quota = program
    .command('quota')
    .description("the project's storage quota and its organization's, with what each holds (the org's: owners and admins)")
    .action(
      connected(async ({ client, out, signal }) => {
        const [project, org] = await Promise.all([client.usage({}, { signal }), orgUsageIfAllowed(client, signal)]);
        out.result({ project: { projectId: project.projectId, storedBytes: project.storedBytes, quota: project.quota }, org: org && orgQuotaOf(org) }, () =>
          quotaLines(project, org),
        );
      }),
    );

  quota
    .command('set')
    .description("set the project's own quota (owners and admins) or, with --org, the organization's (owners), at most the operator's")
    .argument('<size>', 'a size such as 50GiB or 1073741824, or none to remove it', quotaValue)
    .option('--org', "set the organization's quota instead of the project's")
    .action(
      connected(async ({ client, out, signal }, bytes: number | null, options: { org?: boolean }) => {
        const settings = await (options.org ? client.setOrgQuota(bytes, { signal }) : client.setQuota(bytes, { signal })).catch(refusedInput);
        out.result(settings, () => [settingsLine(options.org ? 'Organization' : 'Project', settings)]);
      }),
    );
}

/** The org's usage, or null for a member (403): the project's quota is theirs to see, the org's figures are not. */
async function orgUsageIfAllowed(client: LodeClient, signal: AbortSignal | undefined): Promise<OrgUsage | null> {
  try {
    return await client.orgUsage({ signal });
  } catch (error) {
    if (error instanceof LodeApiError && error.code === 'forbidden') return null;
    throw error;
  }
}

function orgQuotaOf(org: OrgUsage) {
  return { orgId: org.orgId, storedBytes: org.storedBytes, quota: org.quota, operatorBytes: org.operatorBytes, orgBytes: org.orgBytes };
}

function used(storedBytes: number, quota: { bytes: number; source: string } | null): string {
  if (!quota) return `${formatBytes(storedBytes)} stored, no quota`;
  return `${formatBytes(storedBytes)} of ${formatBytes(quota.bytes)} (${percentUsed(storedBytes, quota.bytes)} % used, ${quota.source} quota)`;
}

export function quotaLines(project: Usage, org: OrgUsage | null): string[] {
  return [
    `Project       ${used(project.storedBytes, project.quota)}`,
    org ? `Organization  ${used(org.storedBytes, org.quota)}` : "Organization  (only the organization's owners and admins see its usage and quota)",
  ];
}

export function settingsLine(whose: 'Project' | 'Organization', settings: QuotaSettings | OrgQuotaSettings): string {
  const own = 'projectBytes' in settings ? settings.projectBytes : settings.orgBytes;
  const applies = settings.quota ? `${formatBytes(settings.quota.bytes)} (${settings.quota.source})` : 'none';
  const part = (bytes: number | null) => (bytes === null ? 'none' : formatBytes(bytes));
  return `${whose} quota: ${applies} applies; operator's ${part(settings.operatorBytes)}, own ${part(own)}`;
}

/**
 * `lode usage --org`: the org's figures, its quota and its projects, the largest first; a deleted
 * project is marked, with when its purge frees its storage.
 */
export function orgUsageLines(org: OrgUsage): string[] {
  const cells = [
    ['project', 'stored', 'logical', 'versions'],
    ...org.projects.map((p) => [
      p.deletedAt === null ? p.slug : `${p.slug} (deleted; purged after ${p.purgeAfter})`,
      formatBytes(p.storedBytes),
      formatBytes(p.logicalBytes),
      `${p.versions}`,
    ]),
  ];
  const widths = cells[0].map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return [
    `Storage of organization ${org.orgId} (${plural(org.projects.length, 'project')})`,
    `  logical  ${formatBytes(org.logicalBytes)} in ${plural(org.versions, 'version')} (every version's size)`,
    `  stored   ${formatBytes(org.storedBytes)} in ${plural(org.objects, 'object')} (content kept once per project)`,
    `  quota    ${org.quota ? used(org.storedBytes, org.quota) : 'none'}`,
    ...cells.map((row) => `  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')}`),
  ];
}
