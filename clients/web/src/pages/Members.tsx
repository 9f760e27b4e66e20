import { useState } from 'react';
import { Button, Group, NativeSelect, Table, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api.ts';
import { QueryTable } from '../components/QueryTable.tsx';
import { ErrorNotice } from '../components/States.tsx';
import { usePages } from '../paging.ts';
import type { Member, Role } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

const ROLES: Role[] = ['owner', 'admin', 'member'];

/** The project's organization's members and roles; owners and admins add, change and remove them. */
export function MembersPage() {
  const { overview, manages } = useProject();
  const orgId = overview.org.id;
  const client = useQueryClient();
  const queryKey = ['org', orgId, 'members'];
  const members = usePages<Member>(queryKey, `/api/v1/orgs/${orgId}/members`);
  const refresh = () => client.invalidateQueries({ queryKey });
  const setRole = useMutation({ mutationFn: (body: { userId: string; role: Role } | { email: string; role: Role }) => api('POST', `/api/v1/orgs/${orgId}/members`, body), onSuccess: refresh });
  const remove = useMutation({ mutationFn: (userId: string) => api('DELETE', `/api/v1/orgs/${orgId}/members/${userId}`), onSuccess: refresh });
  const [email, setEmail] = useState('');
  const [role, setNewRole] = useState<Role>('member');
  return (
    <>
      {manages && (
        <form onSubmit={(e) => { e.preventDefault(); setRole.mutate({ email, role }, { onSuccess: () => setEmail('') }); }}>
          <Group align="end" wrap="wrap">
            <TextInput label="Add a user by email" type="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} required />
            <NativeSelect label="Role" value={role} data={ROLES} onChange={(e) => setNewRole(e.currentTarget.value as Role)} />
            <Button type="submit" loading={setRole.isPending}>Add member</Button>
          </Group>
        </form>
      )}
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
                <NativeSelect size="xs" aria-label={`Role of ${m.name}`} value={m.role} data={ROLES} onChange={(e) => setRole.mutate({ userId: m.userId, role: e.currentTarget.value as Role })} />
              ) : (
                m.role
              )}
            </Table.Td>
            {manages && (
              <Table.Td>
                <Button size="xs" color="red" variant="light" onClick={() => remove.mutate(m.userId)} aria-label={`Remove ${m.name}`}>Remove</Button>
              </Table.Td>
            )}
          </Table.Tr>
        )}
      />
    </>
  );
}
