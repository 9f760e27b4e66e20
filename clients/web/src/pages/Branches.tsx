import { useState } from 'react';
import { Alert, Button, Group, List, NativeSelect, Table, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { QueryTable } from '../components/QueryTable.tsx';
import { ErrorNotice } from '../components/States.tsx';
import { formatTime } from '../format.ts';
import type { MergeConflict } from '../types.ts';
import { useBranches } from './Files.tsx';
import { useProject } from './ProjectLayout.tsx';

type Take = 'source' | 'target';

/** Branches: create from another, delete, and merge with a list of conflicts to resolve one by one. */
export function BranchesPage() {
  const { projectId, base } = useProject();
  const client = useQueryClient();
  const branches = useBranches();
  const [name, setName] = useState('');
  const [from, setFrom] = useState('main');
  const refresh = () => client.invalidateQueries({ queryKey: ['project', projectId] });
  const create = useMutation({
    mutationFn: () => api('POST', `${base}/branches`, { name, from }),
    onSuccess: async () => {
      setName('');
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: (branch: string) => api('DELETE', `${base}/branches/${encodeURIComponent(branch)}`), onSuccess: refresh });
  const names = (branches.data?.data ?? []).map((b) => b.name);

  return (
    <>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Group align="end" wrap="wrap">
          <TextInput label="New branch" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
          <NativeSelect label="From" value={from} data={names.length ? names : ['main']} onChange={(e) => setFrom(e.currentTarget.value)} />
          <Button type="submit" loading={create.isPending}>
            Create branch
          </Button>
        </Group>
      </form>
      <ErrorNotice error={create.error ?? remove.error} />
      <QueryTable
        query={branches}
        label="Branches"
        minWidth={560}
        columns={['Name', 'Head', 'Created', 'Actions']}
        row={(b) => (
          <Table.Tr key={b.name}>
            <Table.Td>{b.name}</Table.Td>
            <Table.Td>{b.headSequenceNum === null ? '—' : `#${b.headSequenceNum}`}</Table.Td>
            <Table.Td>
              {formatTime(b.createdAt)}
              {b.createdBy ? ` by ${b.createdBy.userName}` : ''}
            </Table.Td>
            <Table.Td>
              {b.name !== 'main' && (
                <Group gap="xs" wrap="nowrap">
                  <MergeButton source={b.name} targets={names.filter((n) => n !== b.name)} />
                  <ConfirmButton
                    label="Delete"
                    ariaLabel={`Delete branch ${b.name}`}
                    title={`Delete branch ${b.name}?`}
                    message="Its files go; its commits stay in the log and in branches forked from it."
                    confirm="Delete branch"
                    onConfirm={() => remove.mutate(b.name)}
                  />
                </Group>
              )}
            </Table.Td>
          </Table.Tr>
        )}
      />
    </>
  );
}

function MergeButton({ source, targets }: { source: string; targets: string[] }) {
  const { projectId, base } = useProject();
  const client = useQueryClient();
  // Most branches are merged back into main: the default, whatever order the targets come in.
  const [into, setInto] = useState('main');
  const [resolutions, setResolutions] = useState<Record<string, Take>>({});
  const merge = useMutation({
    mutationFn: () =>
      api<{ sequenceNum: number }>('POST', `${base}/branches/${encodeURIComponent(source)}/merge`, {
        into,
        resolutions: Object.entries(resolutions).map(([fileId, take]) => ({ fileId, take })),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['project', projectId] }),
  });
  const conflicts = merge.error instanceof ApiError && merge.error.code === 'merge_conflict' ? (merge.error.body.conflicts as MergeConflict[]) : [];
  return (
    <div>
      <Group gap="xs" wrap="nowrap">
        <NativeSelect size="xs" aria-label={`Merge ${source} into`} value={into} data={targets} onChange={(e) => setInto(e.currentTarget.value)} />
        <Button size="xs" onClick={() => merge.mutate()} loading={merge.isPending}>
          Merge
        </Button>
      </Group>
      {merge.data && (
        <Text size="sm" role="status">
          Merged as commit #{merge.data.sequenceNum}.
        </Text>
      )}
      {conflicts.length > 0 ? (
        <Alert color="orange" title={`${conflicts.length} conflict(s): choose a side for each, then merge again`} mt="xs">
          <List>
            {conflicts.map((c) => (
              <List.Item key={c.fileId}>
                <Group gap="xs">
                  <Text size="sm">{c.path}</Text>
                  <NativeSelect
                    size="xs"
                    aria-label={`Resolve ${c.path}`}
                    value={resolutions[c.fileId] ?? ''}
                    data={[
                      { value: '', label: 'choose…' },
                      { value: 'source', label: `take ${source} (v${c.sourceVersion ?? '–'})` },
                      { value: 'target', label: `keep ${into} (v${c.targetVersion ?? '–'})` },
                    ]}
                    onChange={(e) => setResolutions({ ...resolutions, [c.fileId]: e.currentTarget.value as Take })}
                  />
                </Group>
              </List.Item>
            ))}
          </List>
        </Alert>
      ) : (
        <ErrorNotice error={merge.error} />
      )}
    </div>
  );
}
