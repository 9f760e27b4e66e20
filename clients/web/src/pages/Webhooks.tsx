import { useState } from 'react';
import { Badge, Button, Checkbox, Group, Stack, Table, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, get } from '../api.ts';
import { QueryTable } from '../components/QueryTable.tsx';
import { ShownOnce } from '../components/ShownOnce.tsx';
import { ErrorNotice } from '../components/States.tsx';
import { EVENT_TYPES, type EventType } from '../events.ts';
import type { Webhook } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

/** The project's webhooks (owners and admins): add one (its signing secret shown once), ping, delete. */
export function WebhooksSection() {
  const { projectId, base } = useProject();
  const client = useQueryClient();
  const queryKey = ['project', projectId, 'webhooks'];
  const hooks = useQuery({ queryKey, queryFn: () => get<{ data: Webhook[] }>(`${base}/webhooks`) });
  const refresh = () => client.invalidateQueries({ queryKey });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>(['commit.created']);
  const create = useMutation({
    mutationFn: () => api<Webhook & { secret: string }>('POST', `${base}/webhooks`, { url, events }),
    onSuccess: async () => {
      setUrl('');
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: (id: string) => api('DELETE', `${base}/webhooks/${id}`), onSuccess: refresh });
  const ping = useMutation({ mutationFn: (id: string) => api('POST', `${base}/webhooks/${id}/ping`) });
  return (
    <Stack>
      <Title order={3}>Webhooks</Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Stack gap="xs">
          <TextInput
            label="Payload URL"
            type="url"
            placeholder="https://ci.example.com/lode"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            required
          />
          <Checkbox.Group label="Events" value={events} onChange={setEvents}>
            <Group gap="sm" mt={4}>
              {EVENT_TYPES.map((type) => (
                <Checkbox key={type} value={type} label={type} />
              ))}
            </Group>
          </Checkbox.Group>
          <Group>
            <Button type="submit" loading={create.isPending} disabled={events.length === 0}>
              Add webhook
            </Button>
          </Group>
        </Stack>
      </form>
      {create.data && <ShownOnce title="Signing secret: copy it now, it is shown only once" value={create.data.secret} />}
      <ErrorNotice error={create.error ?? remove.error ?? ping.error} />
      <QueryTable
        query={hooks}
        empty="No webhooks yet."
        label="Webhooks"
        minWidth={600}
        columns={['URL', 'Events', 'State', 'Actions']}
        row={(hook) => (
          <Table.Tr key={hook.id}>
            <Table.Td>{hook.url}</Table.Td>
            <Table.Td>{hook.events.join(', ')}</Table.Td>
            <Table.Td>
              {hook.disabled ? (
                <Badge color="red" title={hook.disabledReason ?? undefined}>
                  disabled
                </Badge>
              ) : (
                <Badge color="green">active</Badge>
              )}
            </Table.Td>
            <Table.Td>
              <Group gap="xs" wrap="nowrap">
                <Button size="xs" variant="default" onClick={() => ping.mutate(hook.id)} aria-label={`Ping ${hook.url}`}>
                  Ping
                </Button>
                <Button size="xs" color="red" variant="light" onClick={() => remove.mutate(hook.id)} aria-label={`Delete webhook ${hook.url}`}>
                  Delete
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        )}
      />
    </Stack>
  );
}
