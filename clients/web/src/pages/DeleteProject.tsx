import { useState } from 'react';
import { Button, Group, Modal, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/States.tsx';
import { formatTime } from '../format.ts';
import type { Project, ProjectDeletion } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

/**
 * Deleting the project, for its org's owners only. The dialog asks for the project's name: a
 * reflex click must not delete the wrong project. The project is purged after the server's undo
 * window; until then the owners bring it back from the home page.
 */
export function DeleteProjectSection() {
  const { base, overview } = useProject();
  const { project, org } = overview;
  const [opened, { open, close }] = useDisclosure(false);
  const [typed, setTyped] = useState('');
  const client = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => api<ProjectDeletion>('DELETE', base),
    onSuccess: async () => {
      close();
      await client.invalidateQueries({ queryKey: ['org', org.id, 'projects'] });
      await navigate('/');
    },
  });
  if (overview.role !== 'owner') return null;
  return (
    <Stack gap="xs" mt="xl">
      <Title order={3}>Delete project</Title>
      <Text size="sm" c="dimmed">
        Every key of the project stops working at once. It is purged, with all its files and history, after the server's undo window; until then an owner can
        bring it back from the home page.
      </Text>
      <Group>
        <Button color="red" variant="light" onClick={open}>
          Delete project
        </Button>
      </Group>
      <Modal opened={opened} onClose={close} title={`Delete ${project.name}?`} centered>
        <Stack gap="sm">
          <Text size="sm">{`Type the project's name, ${project.name}, to confirm.`}</Text>
          <TextInput aria-label="Project name" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} />
          <ErrorNotice error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button color="red" disabled={typed !== project.name} loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete project
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/** A deleted project as its owners see it on the home page: when it goes for good, and the way back. */
export function DeletedProject({ project }: { project: Project }) {
  const client = useQueryClient();
  const restore = useMutation({
    mutationFn: () => api<Project>('POST', `/api/v1/projects/${project.id}/undelete`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['org', project.orgId, 'projects'] }),
  });
  return (
    <Group gap="xs" role="group" aria-label={`Deleted project ${project.name}`}>
      <Text c="dimmed" td="line-through">
        {project.name}
      </Text>
      <Text size="sm" c="dimmed">
        {`deleted; purged after ${formatTime(project.purgeAfter)}`}
      </Text>
      <Button size="xs" variant="light" loading={restore.isPending} onClick={() => restore.mutate()}>
        Restore
      </Button>
      <ErrorNotice error={restore.error} />
    </Group>
  );
}
