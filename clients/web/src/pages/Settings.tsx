import { useState } from 'react';
import { Button, Group, NumberInput, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/States.tsx';
import type { Project, WriteRateLimit } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';
import { WebhooksSection } from './Webhooks.tsx';
import { DeleteProjectSection } from './DeleteProject.tsx';

/**
 * Project settings: the write rate limit and the webhooks (owners and admins), and deleting the project (owners). A project without a
 * limit of its own gets the server's default, so the page names that default rather than showing
 * empty fields, and says which of the two applies.
 */
export function SettingsPage() {
  const { projectId, base, overview, manages } = useProject();
  const client = useQueryClient();
  const { defaultWriteRateLimit: fallback, maxWriteRateLimit: maximum } = overview;
  const current = overview.project.writeRateLimit;
  const [perSecond, setPerSecond] = useState<number | string>(current?.perSecond ?? '');
  const [burst, setBurst] = useState<number | string>(current?.burst ?? '');
  const save = useMutation({
    mutationFn: (limit: WriteRateLimit | null) => api<Project>('PUT', `${base}/write-rate-limit`, { writeRateLimit: limit }),
    onSuccess: (project) => {
      // Back to the default: the fields empty again, its values showing as their placeholders.
      setPerSecond(project.writeRateLimit?.perSecond ?? '');
      setBurst(project.writeRateLimit?.burst ?? '');
      return client.invalidateQueries({ queryKey: ['project', projectId, 'overview'] });
    },
  });
  return (
    <Stack maw={960}>
      <Title order={3}>Write rate limit</Title>
      <Text size="sm" c="dimmed">
        {current
          ? `This project's own limit applies: ${current.perSecond} writes per second in bursts of ${current.burst} (the server's default: ${fallback.perSecond} in bursts of ${fallback.burst}).`
          : `No limit of its own: the server's default applies, ${fallback.perSecond} writes per second in bursts of ${fallback.burst}.`}
      </Text>
      {manages ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ perSecond: Number(perSecond), burst: Number(burst) });
          }}
        >
          <Group align="end" wrap="wrap">
            <NumberInput label="Writes per second" min={0.001} placeholder={String(fallback.perSecond)} value={perSecond} onChange={setPerSecond} required />
            <NumberInput label="Burst" min={1} allowDecimal={false} placeholder={String(fallback.burst)} value={burst} onChange={setBurst} required />
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
            {current && (
              <Button variant="default" onClick={() => save.mutate(null)}>
                Use the default
              </Button>
            )}
          </Group>
          <Text size="xs" c="dimmed" mt="xs">
            {`At most ${maximum.perSecond} writes per second in bursts of ${maximum.burst} here; the server's operator can allow more.`}
          </Text>
        </form>
      ) : (
        <Text size="sm">Only owners and admins change settings.</Text>
      )}
      <ErrorNotice error={save.error} />
      {manages && <WebhooksSection />}
      <DeleteProjectSection />
    </Stack>
  );
}
