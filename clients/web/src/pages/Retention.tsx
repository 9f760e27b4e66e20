import { useState } from 'react';
import { ActionIcon, Button, Group, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, get } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { Figure } from '../components/Figure.tsx';
import { ErrorNotice, QueryState } from '../components/States.tsx';
import { formatBytes, formatTime } from '../format.ts';
import { describeRule, EMPTY_DRAFT, rulesFromDrafts, toDraft, type Rule, type RuleDraft } from '../retention.ts';
import type { RetentionPlan, RetentionReply } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

/**
 * Retention rules: which old versions the server removes on its own, and a preview of what they
 * remove now that an owner or admin can confirm. Branch tips, versions a draft stages and locked
 * files are always kept; removed versions stay in each file's history, marked with the rule.
 */
export function RetentionSection() {
  const { projectId, base, manages } = useProject();
  const retention = useQuery({ queryKey: ['project', projectId, 'retention'], queryFn: () => get<RetentionReply>(`${base}/retention`) });
  return (
    <section aria-labelledby="storage-retention">
      <Title order={3} id="storage-retention" mb="sm">
        Retention rules
      </Title>
      <QueryState query={retention}>
        {(data) => (
          <Stack gap="sm">
            <RulesSummary retention={data} />
            {manages ? (
              <>
                <RulesForm key={data.updatedAt ?? 'none'} rules={data.rules} />
                <PreviewAndRun />
              </>
            ) : (
              <Text size="sm">Only owners and admins change the rules.</Text>
            )}
          </Stack>
        )}
      </QueryState>
    </section>
  );
}

function RulesSummary(props: { retention: RetentionReply }) {
  const { rules, updatedAt, updatedBy, lastRunAt } = props.retention;
  if (rules.length === 0) return <Text size="sm">No rules: every version is kept.</Text>;
  return (
    <Stack gap={4}>
      <Text size="sm" component="ul" aria-label="Rules in force" m={0} pl="md">
        {rules.map((rule, i) => (
          <li key={`${i}:${rule.glob}`}>
            <Text span ff="monospace" size="sm">
              {rule.glob}
            </Text>{' '}
            {describeRule(rule)}
          </li>
        ))}
      </Text>
      <Text size="xs" c="dimmed">
        {`Set ${formatTime(updatedAt)}${updatedBy ? ` by ${updatedBy.userName}` : ''}; last applied ${lastRunAt ? formatTime(lastRunAt) : 'never'}. The server applies them on its own every day.`}
      </Text>
    </Stack>
  );
}

/** One row per rule; saving replaces them all, as the API does. */
function RulesForm(props: { rules: Rule[] }) {
  const { projectId, base } = useProject();
  const client = useQueryClient();
  const [drafts, setDrafts] = useState<RuleDraft[]>(props.rules.map(toDraft));
  const [slip, setSlip] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: (rules: Rule[]) => api<RetentionReply>('PUT', `${base}/retention`, { rules }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['project', projectId, 'retention'] }),
  });
  const edit = (i: number, field: keyof RuleDraft, value: string) => setDrafts((rows) => rows.map((row, j) => (j === i ? { ...row, [field]: value } : row)));
  return (
    <form
      aria-label="Change the retention rules"
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = rulesFromDrafts(drafts);
        setSlip('error' in parsed ? parsed.error : undefined);
        if ('rules' in parsed) save.mutate(parsed.rules);
      }}
    >
      <Stack gap="xs">
        {drafts.map((row, i) => (
          <Group key={i} align="end" wrap="wrap" role="group" aria-label={`Rule ${i + 1}`}>
            <TextInput label="Paths (glob)" placeholder="Levels/**/*.umap" value={row.glob} onChange={(e) => edit(i, 'glob', e.currentTarget.value)} w={280} />
            <TextInput label="Keep last versions" placeholder="5" value={row.keepLast} onChange={(e) => edit(i, 'keepLast', e.currentTarget.value)} w={150} />
            <TextInput label="Keep days" placeholder="30" value={row.keepDays} onChange={(e) => edit(i, 'keepDays', e.currentTarget.value)} w={110} />
            <ActionIcon variant="default" size="lg" aria-label={`Remove rule ${i + 1}`} onClick={() => setDrafts((rows) => rows.filter((_, j) => j !== i))}>
              ✕
            </ActionIcon>
          </Group>
        ))}
        <Group>
          <Button variant="default" onClick={() => setDrafts((rows) => [...rows, EMPTY_DRAFT])}>
            Add a rule
          </Button>
          <Button type="submit" loading={save.isPending}>
            Save rules
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          A version goes only when every rule matching its path lets it go; paths no rule matches are never touched. `*` matches within a folder, `**` any
          number of folders, letter case aside.
        </Text>
        {slip && (
          <Text size="sm" c="red">
            {slip}
          </Text>
        )}
        {save.isError && <ErrorNotice error={save.error} />}
      </Stack>
    </form>
  );
}

/** The dry run, then the run it confirms: exactly the versions listed, or a refusal if they changed. */
function PreviewAndRun() {
  const { projectId, base } = useProject();
  const client = useQueryClient();
  const preview = useMutation({ mutationFn: () => api<RetentionPlan>('POST', `${base}/retention/dry-run`, {}) });
  const run = useMutation({
    mutationFn: (confirmToken: string) => api<RetentionPlan>('POST', `${base}/retention/run`, { confirmToken }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['project', projectId] }),
  });
  const plan = run.data ?? preview.data;
  const token = run.data ? null : (preview.data?.confirmToken ?? null);
  return (
    <Stack gap="xs">
      <Group>
        <Button
          variant="default"
          loading={preview.isPending}
          onClick={() => {
            run.reset();
            preview.mutate();
          }}
        >
          Preview what the rules remove
        </Button>
        {token !== null && preview.data && (
          <ConfirmButton
            label={`Remove ${preview.data.versionCount.toLocaleString()} versions now`}
            ariaLabel="Remove the previewed versions"
            title="Remove these versions?"
            message={`${preview.data.versionCount.toLocaleString()} versions of ${preview.data.fileCount.toLocaleString()} files go for good (${formatBytes(preview.data.freedBytes)} of storage freed). They stay listed in history as removed by retention.`}
            confirm="Remove them"
            onConfirm={() => run.mutate(token)}
          />
        )}
      </Group>
      {preview.isError && <ErrorNotice error={preview.error} />}
      {run.isError && <ErrorNotice error={run.error} />}
      {plan && <PlanFigures plan={plan} />}
    </Stack>
  );
}

function PlanFigures(props: { plan: RetentionPlan }) {
  const { plan } = props;
  return (
    <Stack gap="xs" aria-label={plan.dryRun ? 'Retention preview' : 'Retention run'} role="region">
      <Text size="sm">
        {plan.dryRun
          ? plan.versionCount === 0
            ? 'The rules remove nothing now.'
            : 'The rules would remove now:'
          : `Removed ${formatTime(plan.appliedAt)}: the collector deletes the freed objects once its grace has passed.`}
      </Text>
      <SimpleGrid cols={{ base: 2, sm: 5 }}>
        <Figure label="Versions" value={plan.versionCount.toLocaleString()} />
        <Figure label="Files" value={plan.fileCount.toLocaleString()} />
        <Figure label="Logical size" value={formatBytes(plan.logicalBytes)} />
        <Figure label="Storage freed" value={formatBytes(plan.freedBytes)} />
        <Figure label="Locked files left" value={plan.lockedFiles.toLocaleString()} />
      </SimpleGrid>
      {plan.versions.length > 0 && (
        <DataTable label="Versions the rules remove" minWidth={560} columns={['Path', 'Version', 'Size', 'Made', 'Rule']}>
          {plan.versions.map((v) => (
            <Table.Tr key={`${v.fileId}:${v.version}`}>
              <Table.Td>{v.path}</Table.Td>
              <Table.Td>{v.version}</Table.Td>
              <Table.Td>{formatBytes(v.size)}</Table.Td>
              <Table.Td>{formatTime(v.createdAt)}</Table.Td>
              <Table.Td ff="monospace">{v.rule}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
      {plan.versionsTruncated && <Text size="xs" c="dimmed">{`The first ${plan.versions.length.toLocaleString()} are listed.`}</Text>}
    </Stack>
  );
}
