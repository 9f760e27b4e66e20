import { useState } from 'react';
import { Button, Group, NumberInput, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/States.tsx';
import type { Project, WriteRateLimit } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';
import { WebhooksSection } from './Webhooks.tsx';

/** Project settings: the write rate limit and the webhooks (owners and admins). */
export function SettingsPage() {
  const { projectId, base, overview, manages } = useProject();
  const client = useQueryClient();
  const current = overview.project.writeRateLimit;
  const [perSecond, setPerSecond] = useState<number | string>(current?.perSecond ?? '');
  const [burst, setBurst] = useState<number | string>(current?.burst ?? '');
  const save = useMutation({
    mutationFn: (limit: WriteRateLimit | null) => api<Project>('PUT', `${base}/write-rate-limit`, { writeRateLimit: limit }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['project', projectId, 'overview'] }),
  });
  return (
    <Stack maw={960}>
      <Title order={3}>Write rate limit</Title>
      <Text size="sm" c="dimmed">
        {current ? `This project allows ${current.perSecond} writes per second, bursts of ${current.burst}.` : "This project uses the server's default write rate limit."}
      </Text>
      {manages ? (
        <form onSubmit={(e) => { e.preventDefault(); save.mutate({ perSecond: Number(perSecond), burst: Number(burst) }); }}>
          <Group align="end" wrap="wrap">
            <NumberInput label="Writes per second" min={0.001} value={perSecond} onChange={setPerSecond} required />
            <NumberInput label="Burst" min={1} allowDecimal={false} value={burst} onChange={setBurst} required />
            <Button type="submit" loading={save.isPending}>Save</Button>
            {current && <Button variant="default" onClick={() => save.mutate(null)}>Use the default</Button>}
          </Group>
        </form>
      ) : (
        <Text size="sm">Only owners and admins change settings.</Text>
      )}
      <ErrorNotice error={save.error} />
      {manages && <WebhooksSection />}
    </Stack>
  );
}
