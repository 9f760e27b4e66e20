import { useState } from 'react';
import { Anchor, Badge, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, get } from '../api.ts';
import { ErrorNotice, LoadMore, QueryState } from '../components/States.tsx';
import { usePages } from '../paging.ts';
import { formatTime } from '../format.ts';
import type { MyInvitation, Org, Project } from '../types.ts';
import { DeletedProject } from './DeleteProject.tsx';

/** The person's organizations and their projects. */
export function HomePage() {
  const orgs = useQuery({ queryKey: ['orgs'], queryFn: () => get<{ data: Org[] }>('/api/v1/me/orgs') });
  return (
    <Stack>
      <Title order={2}>Projects</Title>
      <MyInvitations />
      <QueryState
        query={orgs}
        isEmpty={(d) => d.data.length === 0}
        empty="You are not a member of any organization yet: ask one of its owners or admins to invite you."
      >
        {(data) => data.data.map((org) => <OrgProjects key={org.id} org={org} />)}
      </QueryState>
    </Stack>
  );
}

/** Invitations to the person's email address: one accepted adds its organization, and its projects, below. */
function MyInvitations() {
  const client = useQueryClient();
  const invitations = useQuery({ queryKey: ['invitations'], queryFn: () => get<{ data: MyInvitation[] }>('/api/v1/me/invitations') });
  const answer = useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'accept' | 'decline' }) => api('POST', `/api/v1/me/invitations/${id}/${action}`),
    // A refusal (expired or revoked meanwhile) also changes the list: it is read again either way.
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: ['invitations'] }), client.invalidateQueries({ queryKey: ['orgs'] })]),
  });
  const pending = invitations.data?.data ?? [];
  if (pending.length === 0) return <ErrorNotice error={invitations.error ?? answer.error} />;
  return (
    <Card withBorder component="section" aria-label="Invitations">
      <Title order={3} mb="sm">
        Invitations
      </Title>
      <Stack gap="xs">
        {pending.map((invitation) => (
          <Group key={invitation.id} justify="space-between" wrap="wrap">
            <Text>
              {invitation.invitedBy.userName} invites you to <b>{invitation.org.name}</b> as {invitation.role}{' '}
              <Text span c="dimmed" size="sm">
                (until {formatTime(invitation.expiresAt)})
              </Text>
            </Text>
            <Group gap="xs">
              <Button
                size="xs"
                loading={answer.isPending}
                onClick={() => answer.mutate({ id: invitation.id, action: 'accept' })}
                aria-label={`Accept the invitation to ${invitation.org.name}`}
              >
                Accept
              </Button>
              <Button
                size="xs"
                variant="default"
                disabled={answer.isPending}
                onClick={() => answer.mutate({ id: invitation.id, action: 'decline' })}
                aria-label={`Decline the invitation to ${invitation.org.name}`}
              >
                Decline
              </Button>
            </Group>
          </Group>
        ))}
        <ErrorNotice error={answer.error} />
      </Stack>
    </Card>
  );
}

function OrgProjects({ org }: { org: Org }) {
  const projects = usePages<Project>(['org', org.id, 'projects'], `/api/v1/orgs/${org.id}/projects`);
  const manages = org.role !== 'member';
  return (
    <Card withBorder component="section" aria-label={`Organization ${org.name}`}>
      <Group justify="space-between" mb="sm">
        <Title order={3}>{org.name}</Title>
        <Badge variant="light">{org.role}</Badge>
      </Group>
      <QueryState query={projects} isEmpty={(d) => d.data.length === 0} empty="No projects yet.">
        {(data) => (
          <Stack gap="xs">
            {data.data.map((project) =>
              // Only the owners are shown deleted projects: the ones they can still bring back.
              project.deletedAt ? (
                <DeletedProject key={project.id} project={project} />
              ) : (
                <Anchor key={project.id} component={Link} to={`/projects/${project.id}/files`}>
                  {project.name}{' '}
                  <Text span c="dimmed" size="sm">
                    ({project.slug})
                  </Text>
                </Anchor>
              ),
            )}
            <LoadMore query={projects} what={`projects of ${org.name}`} />
          </Stack>
        )}
      </QueryState>
      {manages && <CreateProject orgId={org.id} />}
    </Card>
  );
}

function CreateProject({ orgId }: { orgId: string }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: () => api<Project>('POST', `/api/v1/orgs/${orgId}/projects`, { name, slug }),
    onSuccess: async () => {
      setName('');
      setSlug('');
      await client.invalidateQueries({ queryKey: ['org', orgId, 'projects'] });
    },
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <Stack gap="xs" mt="md">
        <Group align="end" wrap="wrap">
          <TextInput label="Project name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
          <TextInput label="Slug" description="lowercase letters, digits, hyphens" value={slug} onChange={(e) => setSlug(e.currentTarget.value)} required />
          <Button type="submit" loading={create.isPending}>
            Create project
          </Button>
        </Group>
        <ErrorNotice error={create.error} />
      </Stack>
    </form>
  );
}
