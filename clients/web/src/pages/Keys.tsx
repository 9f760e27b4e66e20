import { Badge, Button, Code, Group, Table, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { QueryTable } from '../components/QueryTable.tsx';
import { ShownOnce } from '../components/ShownOnce.tsx';
import { ErrorNotice } from '../components/States.tsx';
import { formatTime } from '../format.ts';
import { usePages } from '../paging.ts';
import type { ApiKey } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

/** API keys: members see and manage their own, owners and admins everyone's; a new key is shown once. */
export function KeysPage() {
  const { projectId, base, manages } = useProject();
  const client = useQueryClient();
  const queryKey = ['project', projectId, 'keys'];
  const keys = usePages<ApiKey>(queryKey, `${base}/keys`);
  const refresh = () => client.invalidateQueries({ queryKey });
  const create = useMutation({ mutationFn: () => api<ApiKey & { key: string }>('POST', `${base}/keys`, {}), onSuccess: refresh });
  const revoke = useMutation({ mutationFn: (id: string) => api('DELETE', `${base}/keys/${id}`), onSuccess: refresh });
  const reset = useMutation({ mutationFn: (id: string) => api('POST', `${base}/keys/${id}/reset-device`), onSuccess: refresh });
  return (
    <>
      <Group>
        <Button onClick={() => create.mutate()} loading={create.isPending}>
          Create API key
        </Button>
        <Text size="sm" c="dimmed">
          {manages ? "You see everyone's keys in this project." : 'You see your own keys.'}
        </Text>
      </Group>
      <ErrorNotice error={create.error ?? revoke.error ?? reset.error} />
      {create.data && <ShownOnce title="Your new key: copy it now, it is shown only once" value={create.data.key} testId="new-key" />}
      <QueryTable
        query={keys}
        empty="No keys yet."
        label="API keys"
        minWidth={760}
        columns={['Key', 'Owner', 'Device', 'Created', 'Last used', 'Actions']}
        row={(key) => (
          <Table.Tr key={key.id}>
            <Table.Td>
              <Code>{key.hint}</Code>{' '}
              {key.revokedAt && (
                <Badge color="red" size="xs">
                  revoked
                </Badge>
              )}
            </Table.Td>
            <Table.Td>{key.userName}</Table.Td>
            <Table.Td>{key.deviceBound ? key.deviceId : 'not bound'}</Table.Td>
            <Table.Td>{formatTime(key.createdAt)}</Table.Td>
            <Table.Td>{formatTime(key.lastUsedAt)}</Table.Td>
            <Table.Td>
              {!key.revokedAt && (
                <Group gap="xs" wrap="nowrap">
                  {key.deviceBound && (
                    <Button size="xs" variant="default" onClick={() => reset.mutate(key.id)} aria-label={`Reset device of ${key.hint}`}>
                      Reset device
                    </Button>
                  )}
                  <ConfirmButton
                    label="Revoke"
                    ariaLabel={`Revoke ${key.hint}`}
                    title={`Revoke key ${key.hint}?`}
                    message={`Every request made with it fails from now on (${key.userName}'s tools must get a new key). This cannot be undone.`}
                    confirm="Revoke key"
                    onConfirm={() => revoke.mutate(key.id)}
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
