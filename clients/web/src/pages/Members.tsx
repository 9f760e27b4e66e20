import { useState } from 'react';
import { Badge, Button, Group, NativeSelect, Table, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api.ts';
import { QueryTable } from '../components/QueryTable.tsx';
import { ErrorNotice } from '../components/States.tsx';
import { formatTime } from '../format.ts';
import { usePages } from '../paging.ts';
import type { Member, OrgInvitation, Role } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

const ROLES: Role[] = ['owner', 'admin', 'member'];

/**
 * The project's organization's members and roles; owners and admins change roles, remove members
 * and invite people by email, who join when they accept (on their projects page).
 */
export function MembersPage() {
  const { overview, manages } = useProject();
  const orgId = overview.org.id;
  const client = useQueryClient();
  const queryKey = ['org', orgId, 'members'];
  const members = usePages<Member>(queryKey, `/api/v1/orgs/${orgId}/members`);
  const refresh = () => client.invalidateQueries({ queryKey });
  const setRole = useMutation({ mutationFn: (body: { userId: string; role: Role }) => api('POST', `/api/v1/orgs/${orgId}/members`, body), onSuccess: refresh });
  const remove = useMutation({ mutationFn: (userId: string) => api('DELETE', `/api/v1/orgs/${orgId}/members/${userId}`), onSuccess: refresh });
  return (
    <>
      {manages && <InviteForm orgId={orgId} />}
      <ErrorNotice error={setRole.error ?? remove.error} />
      <QueryTable
        query={members}
        label="Members"
        minWidth={520}
        columns={['Name', 'Email', 'Role', ...(manages ? ['Actions'] : [])]}
        row={(m) => (
          <Table.Tr key={m.userId}>
            <Table.Td>{m.name}</Table.Td>
            <Table.Td>{m.email ?? '—'}</Table.Td>
            <Table.Td>
              {manages ? (
                <NativeSelect
                  size="xs"
                  aria-label={`Role of ${m.name}`}
                  value={m.role}
                  data={ROLES}
                  onChange={(e) => setRole.mutate({ userId: m.userId, role: e.currentTarget.value as Role })}
                />
              ) : (
                m.role
              )}
            </Table.Td>
            {manages && (
              <Table.Td>
                <Button size="xs" color="red" variant="light" onClick={() => remove.mutate(m.userId)} aria-label={`Remove ${m.name}`}>
                  Remove
                </Button>
              </Table.Td>
            )}
          </Table.Tr>
        )}
      />
      {manages && <PendingInvitations orgId={orgId} />}
    </>
  );
}

const invitationsKey = (orgId: string) => ['org', orgId, 'invitations'];

function InviteForm({ orgId }: { orgId: string }) {
  const client = useQueryClient();
  const invite = useMutation({
    mutationFn: (body: { email: string; role: Role }) => api('POST', `/api/v1/orgs/${orgId}/invitations`, body),
    onSuccess: () => client.invalidateQueries({ queryKey: invitationsKey(orgId) }),
  });
  const [email, setEmail] = useState('');
  const [role, setNewRole] = useState<Role>('member');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        invite.mutate({ email, role }, { onSuccess: () => setEmail('') });
      }}
    >
      <Group align="end" wrap="wrap">
        <TextInput
          label="Invite by email"
          description="They join once they accept, within 7 days"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          required
        />
        <NativeSelect label="Role" value={role} data={ROLES} onChange={(e) => setNewRole(e.currentTarget.value as Role)} />
        <Button type="submit" loading={invite.isPending}>
          Invite
        </Button>
      </Group>
      <ErrorNotice error={invite.error} />
    </form>
  );
}

/** The invitations nobody has answered yet, expired ones included until revoked or replaced. */
function PendingInvitations({ orgId }: { orgId: string }) {
  const client = useQueryClient();
  const invitations = usePages<OrgInvitation>(invitationsKey(orgId), `/api/v1/orgs/${orgId}/invitations`);
  const revoke = useMutation({
    mutationFn: (id: string) => api('DELETE', `/api/v1/orgs/${orgId}/invitations/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: invitationsKey(orgId) }),
  });
  return (
    <>
      <Title order={3}>Pending invitations</Title>
      <ErrorNotice error={revoke.error} />
      <QueryTable
        query={invitations}
        empty="No pending invitations."
        label="Invitations"
        minWidth={620}
        columns={['Email', 'Role', 'Invited by', 'Expires', 'Actions']}
        row={(i) => (
          <Table.Tr key={i.id}>
            <Table.Td>{i.email}</Table.Td>
            <Table.Td>{i.role}</Table.Td>
            <Table.Td>{i.invitedBy.userName}</Table.Td>
            <Table.Td>
              {i.state === 'expired' ? (
                <Badge color="gray" size="xs">
                  expired
                </Badge>
              ) : (
                formatTime(i.expiresAt)
              )}
            </Table.Td>
            <Table.Td>
              <Button size="xs" color="red" variant="light" onClick={() => revoke.mutate(i.id)} aria-label={`Revoke the invitation of ${i.email}`}>
                Revoke
              </Button>
            </Table.Td>
          </Table.Tr>
        )}
      />
    </>
  );
}
