import { useState } from 'react';
import { Button, Group, NativeSelect, NumberInput, Progress, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, get, withQuery } from '../api.ts';
import { DataTable } from '../components/DataTable.tsx';
import { Figure } from '../components/Figure.tsx';
import { ErrorNotice, QueryState } from '../components/States.tsx';
import { formatBytes, formatTime } from '../format.ts';
import type { OrgUsageReply, Quota, QuotaReply, UsageDay, UsageReply } from '../types.ts';
import { BYTE_UNITS, chartSeries, dedupSaving, inUnit, quotaFill, toBytes, type ByteUnit, type ChartPoint } from '../usage.ts';
import { useProject } from './ProjectLayout.tsx';
import { RetentionSection } from './Retention.tsx';

/**
 * A project's storage: what its history weighs against what Lode stores for it, the quota, how
 * both moved over the last days, and (asked for, since it reads every version) the weight of each
 * file extension. Owners and admins set the project's own quota and the retention rules here.
 */
export function StoragePage() {
  const { projectId, base } = useProject();
  const usage = useQuery({ queryKey: ['project', projectId, 'usage'], queryFn: () => get<UsageReply>(`${base}/usage`) });
  return (
    <Stack maw={960}>
      <QueryState query={usage}>
        {(data) => (
          <>
            <Figures usage={data} />
            <QuotaSection usage={data} />
            <OrgQuotaSection />
            <HistoryChart history={data.history} />
          </>
        )}
      </QueryState>
      <ExtensionsSection />
      <RetentionSection />
    </Stack>
  );
}

function Figures(props: { usage: UsageReply }) {
  const { usage } = props;
  const saving = dedupSaving(usage.logicalBytes, usage.storedBytes);
  return (
    <section aria-labelledby="storage-figures">
      <Title order={3} id="storage-figures" mb="sm">
        Storage
      </Title>
      <SimpleGrid cols={{ base: 2, sm: 3 }}>
        <Figure label="Logical size" value={formatBytes(usage.logicalBytes)} hint="every live version added up" />
        <Figure label="Stored" value={formatBytes(usage.storedBytes)} hint="the distinct objects kept" />
        <Figure label="Saved by deduplication" value={formatBytes(saving.bytes)} hint={`${saving.percent.toFixed(1)} % of the logical size`} />
        <Figure label="Versions" value={usage.versions.toLocaleString()} />
        <Figure label="Objects" value={usage.objects.toLocaleString()} />
        <Figure
          label="Collectable"
          value={formatBytes(usage.collectable.bytes)}
          hint={`${usage.collectable.objects.toLocaleString()} objects the collector will delete`}
        />
      </SimpleGrid>
    </section>
  );
}

function QuotaSection(props: { usage: UsageReply }) {
  const { manages } = useProject();
  const { quota, storedBytes } = props.usage;
  return (
    <section aria-labelledby="storage-quota">
      <Title order={3} id="storage-quota" mb="sm">
        Quota
      </Title>
      {quota ? <QuotaBar storedBytes={storedBytes} quota={quota} /> : <Text size="sm">No quota: uploads are not limited by size.</Text>}
      {manages ? (
        <QuotaForm quota={quota} />
      ) : (
        <Text size="sm" mt="xs">
          Only owners and admins change the quota.
        </Text>
      )}
    </section>
  );
}

/** Whose quota applies, as the bar says it. */
const QUOTA_OWNERS: Record<Quota['source'] | NonNullable<OrgUsageReply['quota']>['source'], string> = {
  operator: "the server operator's",
  project: "the project's own",
  org_operator: "the server operator's organization",
  org: "the organization's own",
};

/**
 * The org's storage beside the project's, for its owners and admins (the server answers members
 * 403): the projects' stored bytes together against the org quota, which uploads must fit as well.
 */
function OrgQuotaSection() {
  const { projectId, base, manages } = useProject();
  const org = useQuery({ queryKey: ['project', projectId, 'org-usage'], queryFn: () => get<OrgUsageReply>(`${base}/org/usage`), enabled: manages });
  if (!manages) return null;
  return (
    <section aria-labelledby="storage-org-quota">
      <Title order={3} id="storage-org-quota" mb="sm">
        Organization storage
      </Title>
      <QueryState query={org}>
        {(data) => (
          <Stack gap={4}>
            {data.quota ? (
              <QuotaBar storedBytes={data.storedBytes} quota={data.quota} label="Organization's share of its quota" />
            ) : (
              <Text size="sm">{`No organization quota: its ${data.projects.length.toLocaleString()} projects store ${formatBytes(data.storedBytes)} together.`}</Text>
            )}
            <Text size="xs" c="dimmed">
              Uploads must fit both the project's quota and the organization's. Only the organization's owners change its quota.
            </Text>
            <DataTable label="Storage by project" minWidth={560} columns={['Project', 'Stored', 'Logical size', 'Versions']}>
              {data.projects.map((row) => (
                <Table.Tr key={row.projectId} fw={row.projectId === projectId ? 600 : undefined}>
                  <Table.Td>
                    {row.name}
                    {row.deletedAt !== null && (
                      // Its storage counts until the purge, when it leaves the list.
                      <Text span size="sm" c="dimmed">{` (deleted; purged after ${formatTime(row.purgeAfter)})`}</Text>
                    )}
                  </Table.Td>
                  <Table.Td>{formatBytes(row.storedBytes)}</Table.Td>
                  <Table.Td>{formatBytes(row.logicalBytes)}</Table.Td>
                  <Table.Td>{row.versions.toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
          </Stack>
        )}
      </QueryState>
    </section>
  );
}

function QuotaBar(props: { storedBytes: number; quota: { bytes: number; source: keyof typeof QUOTA_OWNERS }; label?: string }) {
  const { percent, color } = quotaFill(props.storedBytes, props.quota.bytes);
  const whose = QUOTA_OWNERS[props.quota.source];
  return (
    <Stack gap={4}>
      <Text size="sm">{`${formatBytes(props.storedBytes)} of ${formatBytes(props.quota.bytes)} stored (${percent.toFixed(1)} %), ${whose} quota`}</Text>
      <Progress value={Math.min(100, percent)} color={color} size="lg" aria-label={props.label ?? 'Quota used'} />
      {color !== 'blue' && (
        <Text size="xs" c={color}>
          {color === 'red' ? 'The quota is reached: new uploads that store more are refused.' : 'Over 80 % of the quota is used.'}
        </Text>
      )}
    </Stack>
  );
}

/** The project's own quota; the server refuses more than the operator's with the most allowed. */
function QuotaForm(props: { quota: Quota | null }) {
  const { projectId, base } = useProject();
  const client = useQueryClient();
  const initial = props.quota?.source === 'project' ? inUnit(props.quota.bytes) : undefined;
  const [value, setValue] = useState<number | string>(initial?.value ?? '');
  const [unit, setUnit] = useState<ByteUnit>(initial?.unit ?? 'GiB');
  const save = useMutation({
    mutationFn: (bytes: number | null) => api<QuotaReply>('PUT', `${base}/quota`, { bytes }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['project', projectId, 'usage'] }),
  });
  const bytes = toBytes(value, unit);
  const maximum = save.error instanceof ApiError && typeof save.error.body.maximum === 'number' ? save.error.body.maximum : undefined;
  return (
    <form
      aria-label="Change the quota"
      onSubmit={(e) => {
        e.preventDefault();
        if (bytes !== null) save.mutate(bytes);
      }}
    >
      <Group align="end" wrap="wrap" mt="sm">
        <NumberInput label="Project quota" min={0} value={value} onChange={setValue} required />
        <NativeSelect label="Unit" data={[...BYTE_UNITS]} value={unit} onChange={(e) => setUnit(e.currentTarget.value as ByteUnit)} w={100} />
        <Button type="submit" loading={save.isPending && save.variables !== null} disabled={bytes === null}>
          Set quota
        </Button>
        {props.quota?.source === 'project' && (
          <Button variant="default" loading={save.isPending && save.variables === null} onClick={() => save.mutate(null)}>
            Remove the project's quota
          </Button>
        )}
      </Group>
      <Text size="xs" c="dimmed" mt="xs">
        The project's own quota may be lower than the server operator's, never higher; the lower one applies.
      </Text>
      {save.isError && (
        <Stack gap={4} mt="xs">
          <ErrorNotice error={save.error} />
          {maximum !== undefined && <Text size="sm">{`At most ${formatBytes(maximum)} (${maximum.toLocaleString()} bytes) here.`}</Text>}
        </Stack>
      )}
    </form>
  );
}

const CHART_WIDTH = 600;
const CHART_HEIGHT = 160;
const LOGICAL_COLOR = 'var(--mantine-color-gray-6)';
const STORED_COLOR = 'var(--mantine-color-blue-6)';

/**
 * Stored and logical bytes, one point a day. Drawn by hand as SVG: the dashboard has no charting
 * package, and two lines over at most 90 points do not justify adding one to the bundle.
 */
function HistoryChart(props: { history: UsageDay[] }) {
  const { history } = props;
  const { logical, stored, peak } = chartSeries(history, CHART_WIDTH, CHART_HEIGHT);
  const first = history[0]?.day;
  const last = history.at(-1)?.day;
  const line = (points: ChartPoint[], color: string, name: string) => (
    <g aria-label={name} role="list">
      <polyline points={points.map(({ x, y }) => `${x},${y}`).join(' ')} fill="none" stroke={color} strokeWidth={2} vectorEffect="non-scaling-stroke" />
      {points.map((point) => (
        <circle key={point.day} cx={point.x} cy={point.y} r={3} fill={color} role="listitem" aria-label={`${point.day}: ${formatBytes(point.bytes)}`}>
          <title>{`${name}, ${point.day}: ${formatBytes(point.bytes)}`}</title>
        </circle>
      ))}
    </g>
  );
  return (
    <section aria-labelledby="storage-history">
      <Title order={3} id="storage-history" mb="sm">
        Over time
      </Title>
      {history.length === 0 ? (
        <Text c="dimmed">No history yet.</Text>
      ) : (
        <Stack gap={4}>
          <Group gap="md">
            <Text size="sm" c="blue.6">
              ━ Stored
            </Text>
            <Text size="sm" c="gray.6">
              ━ Logical size
            </Text>
            <Text size="xs" c="dimmed" ml="auto">{`peak ${formatBytes(peak)}`}</Text>
          </Group>
          <svg
            role="img"
            aria-label={`Stored and logical bytes by day, ${first} to ${last}`}
            viewBox={`-6 -6 ${CHART_WIDTH + 12} ${CHART_HEIGHT + 12}`}
            width="100%"
            style={{ maxHeight: 220, border: '1px solid var(--mantine-color-gray-3)', borderRadius: 4 }}
          >
            {line(logical, LOGICAL_COLOR, 'Logical size')}
            {line(stored, STORED_COLOR, 'Stored')}
          </svg>
          <Group justify="space-between">
            <Text size="xs" c="dimmed">
              {first}
            </Text>
            <Text size="xs" c="dimmed">
              {last}
            </Text>
          </Group>
        </Stack>
      )}
    </section>
  );
}

/**
 * The breakdown by file extension reads every version of the project (seconds on the largest), so
 * it waits for a click rather than slowing every visit of the page. Its key is outside the
 * project's, which the live feed refreshes on every change: a busy project would otherwise ask for
 * it again and again; it is refreshed on request instead.
 */
function ExtensionsSection() {
  const { projectId, base } = useProject();
  const [wanted, setWanted] = useState(false);
  const byExtension = useQuery({
    queryKey: ['usage-by-extension', projectId],
    queryFn: () => get<UsageReply>(withQuery(`${base}/usage`, { by: 'extension' })),
    enabled: wanted,
  });
  return (
    <section aria-labelledby="storage-extensions">
      <Group justify="space-between" mb="sm">
        <Title order={3} id="storage-extensions">
          By file extension
        </Title>
        {wanted ? (
          <Button variant="default" size="xs" onClick={() => void byExtension.refetch()} loading={byExtension.isFetching}>
            Refresh
          </Button>
        ) : (
          <Button variant="default" size="xs" onClick={() => setWanted(true)}>
            Show by extension
          </Button>
        )}
      </Group>
      {!wanted ? (
        <Text size="sm" c="dimmed">
          The 100 largest extensions by logical size; counting them reads every version, which can take a few seconds on a large project.
        </Text>
      ) : (
        <QueryState query={byExtension} isEmpty={(data) => (data.byExtension ?? []).length === 0} empty="No files yet.">
          {(data) => (
            <DataTable label="Storage by file extension" minWidth={560} columns={['Extension', 'Files', 'Versions', 'Logical size', 'Stored', 'Objects']}>
              {(data.byExtension ?? []).map((row) => (
                <Table.Tr key={row.extension}>
                  <Table.Td>{row.extension === '' ? <Text c="dimmed">(none)</Text> : `.${row.extension}`}</Table.Td>
                  <Table.Td>{row.files.toLocaleString()}</Table.Td>
                  <Table.Td>{row.versions.toLocaleString()}</Table.Td>
                  <Table.Td>{formatBytes(row.logicalBytes)}</Table.Td>
                  <Table.Td>{formatBytes(row.storedBytes)}</Table.Td>
                  <Table.Td>{row.objects.toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
          )}
        </QueryState>
      )}
    </section>
  );
}
