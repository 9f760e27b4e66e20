import { Anchor, Button, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api } from '../api.ts';
import { QueryTable } from '../components/QueryTable.tsx';
import { ErrorNotice } from '../components/States.tsx';
import { formatBytes, formatTime } from '../format.ts';
import { usePages } from '../paging.ts';
import type { DownloadResult, FileVersion } from '../types.ts';
import { useLockActions } from './Locks.tsx';
import { useProject } from './ProjectLayout.tsx';

/** A file's path and versions on main: download each, see who uploaded it in which commit, restore one. */
export function FilePage() {
  const { projectId, base } = useProject();
  const { fileId = '' } = useParams();
  const client = useQueryClient();
  const versions = usePages<FileVersion>(['project', projectId, 'versions', fileId], `${base}/files/${encodeURIComponent(fileId)}/versions`);
  // The versions carry no path; the tip on main does (a deleted file's too), in one read.
  const tip = useQuery({
    queryKey: ['project', projectId, 'tip', fileId],
    queryFn: () => api<{ results: DownloadResult[] }>('POST', `${base}/files/download-urls`, { files: [{ fileId }] }),
  });
  const path = tip.data?.results[0]?.path;
  const restore = useMutation({
    mutationFn: (toVersion: number) => api<{ sequenceNum: number }>('POST', `${base}/restore`, { files: [{ fileId, toVersion }] }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['project', projectId] }),
  });
  const { take } = useLockActions();
  return (
    <>
      <Anchor component={Link} to={`/projects/${projectId}/files`}>
        ← Files
      </Anchor>
      <Group justify="space-between" wrap="wrap">
        <Stack gap={0}>
          <Title order={3} style={{ wordBreak: 'break-all' }}>
            {path ?? (tip.isPending ? '…' : 'A file not on main')}
          </Title>
          <Text size="sm" c="dimmed">
            History on main
          </Text>
        </Stack>
        <Button size="xs" variant="default" onClick={() => take.mutate(fileId)} loading={take.isPending}>
          Lock this file
        </Button>
      </Group>
      <ErrorNotice error={restore.error ?? take.error} />
      {restore.data && <Text role="status">Restored in commit #{restore.data.sequenceNum}.</Text>}
      <QueryTable
        query={versions}
        empty="No committed versions on main."
        label="Versions"
        minWidth={720}
        columns={['Version', 'Size', 'SHA-256', 'Uploader', 'Commit', 'Uploaded', 'Actions']}
        row={(v, i) => (
          <Table.Tr key={v.id}>
            <Table.Td>v{v.version}</Table.Td>
            <Table.Td>{formatBytes(v.size)}</Table.Td>
            <Table.Td>
              <Code title={v.sha256}>{v.sha256.slice(0, 12)}…</Code>
            </Table.Td>
            <Table.Td>{v.uploaderName}</Table.Td>
            <Table.Td>
              {v.commitId ? (
                <Anchor component={Link} to={`/projects/${projectId}/commits/${v.commitId}`}>
                  view
                </Anchor>
              ) : (
                '—'
              )}
            </Table.Td>
            <Table.Td>{formatTime(v.createdAt)}</Table.Td>
            <Table.Td>
              <Group gap="xs" wrap="nowrap">
                <Button component="a" href={v.downloadUrl} size="xs" variant="light" aria-label={`Download version ${v.version}`}>
                  Download
                </Button>
                {i > 0 && (
                  <Button size="xs" variant="default" onClick={() => restore.mutate(v.version)} loading={restore.isPending} aria-label={`Restore version ${v.version}`}>
                    Restore
                  </Button>
                )}
              </Group>
            </Table.Td>
          </Table.Tr>
        )}
      />
    </>
  );
}
