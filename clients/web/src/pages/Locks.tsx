import { Anchor, Badge, Button, Table } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api.ts';
import { QueryTable } from '../components/QueryTable.tsx';
import { ErrorNotice } from '../components/States.tsx';
import { formatTime } from '../format.ts';
import { usePages } from '../paging.ts';
import type { Lock } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

/** Take or release a lock on one file; `force` releases anyone's (owners and admins). */
export function useLockActions() {
  const { projectId, base } = useProject();
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['project', projectId] });
  const take = useMutation({ mutationFn: (fileId: string) => api('POST', `${base}/locks`, { fileIds: [fileId] }), onSuccess: refresh });
  const release = useMutation({
    mutationFn: ({ fileId, force }: { fileId: string; force: boolean }) => api('DELETE', `${base}/locks`, { fileIds: [fileId], force }),
    onSuccess: refresh,
  });
  return { take, release };
}

/** Who holds which file, live: a lock taken anywhere appears here without a reload. */
export function LocksPage() {
  const { projectId, base, manages } = useProject();
  const locks = usePages<Lock>(['project', projectId, 'locks', 'all'], `${base}/locks`);
  const { release } = useLockActions();
  return (
    <>
      <ErrorNotice error={release.error} />
      <QueryTable
        query={locks}
        empty="No file is locked."
        label="Locks"
        minWidth={560}
        columns={['File', 'Held by', 'Note', 'Since', 'Actions']}
        row={(lock) => (
          <Table.Tr key={lock.fileId}>
            <Table.Td><Anchor component={Link} to={`/projects/${projectId}/files/${lock.fileId}`}>{lock.path}</Anchor></Table.Td>
            <Table.Td>{lock.userName} {lock.isMine && <Badge size="xs">you</Badge>}</Table.Td>
            <Table.Td>{lock.note || '—'}</Table.Td>
            <Table.Td>{formatTime(lock.lockedAt)}</Table.Td>
            <Table.Td>
              {lock.isMine ? (
                <Button size="xs" variant="light" onClick={() => release.mutate({ fileId: lock.fileId, force: false })} aria-label={`Release ${lock.path}`}>Release</Button>
              ) : manages ? (
                <Button size="xs" color="red" variant="light" onClick={() => release.mutate({ fileId: lock.fileId, force: true })} aria-label={`Force release ${lock.path}`}>Force release</Button>
              ) : null}
            </Table.Td>
          </Table.Tr>
        )}
      />
    </>
  );
}
