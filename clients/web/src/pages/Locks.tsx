import { Anchor, Badge, Table } from '@mantine/core';
import { Link } from 'react-router';
import { LockActions, useLockActions } from '../components/LockActions.tsx';
import { QueryTable } from '../components/QueryTable.tsx';
import { ErrorNotice } from '../components/States.tsx';
import { formatTime } from '../format.ts';
import { usePages } from '../paging.ts';
import type { Lock } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

/** Who holds which file, live: a lock taken anywhere appears here without a reload. */
export function LocksPage() {
  const { projectId, base } = useProject();
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
            <Table.Td>
              <Anchor component={Link} to={`/projects/${projectId}/files/${lock.fileId}`}>
                {lock.path}
              </Anchor>
            </Table.Td>
            <Table.Td>
              {lock.userName} {lock.isMine && <Badge size="xs">you</Badge>}
            </Table.Td>
            <Table.Td>{lock.note || '—'}</Table.Td>
            <Table.Td>{formatTime(lock.lockedAt)}</Table.Td>
            <Table.Td>
              <LockActions lock={lock} release={release} />
            </Table.Td>
          </Table.Tr>
        )}
      />
    </>
  );
}
