import { useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, get, withQuery } from '../api.ts';
import { LockActions, useLockActions } from '../components/LockActions.tsx';
import { QueryTable } from '../components/QueryTable.tsx';
import { ErrorNotice, QueryState } from '../components/States.tsx';
import { formatBytes, formatTime } from '../format.ts';
import { usePages } from '../paging.ts';
import type { AcquireLocksResult, DownloadResult, FileVersion, Lock, Page } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

/** The most locks GET /locks answers in one page. */
const LOCKS_PER_PAGE = 200;

/** A file's path, its lock and its versions on main: download each, see who uploaded it in which commit, restore one. */
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
      </Group>
      <FileLock fileId={fileId} path={path} ready={!tip.isPending} />
      <ErrorNotice error={restore.error} />
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
              {v.purged ? (
                <Badge
                  color="gray"
                  variant="light"
                  title={`Removed by ${v.purged.by?.userName ?? 'the retention job'}, ${formatTime(v.purged.at)} (${v.purged.rule === undefined ? v.purged.reason : `${v.purged.reason} rule ${v.purged.rule}`})`}
                >
                  removed ({v.purged.reason})
                </Badge>
              ) : (
                <Group gap="xs" wrap="nowrap">
                  <Button component="a" href={v.downloadUrl ?? undefined} size="xs" variant="light" aria-label={`Download version ${v.version}`}>
                    Download
                  </Button>
                  {i > 0 && (
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => restore.mutate(v.version)}
                      loading={restore.isPending}
                      aria-label={`Restore version ${v.version}`}
                    >
                      Restore
                    </Button>
                  )}
                </Group>
              )}
            </Table.Td>
          </Table.Tr>
        )}
      />
    </>
  );
}

/**
 * The file's lock, or null when nobody holds it. The listing filters by path, not by file: the
 * prefix narrows it to this file and the locked files whose paths extend its path, read a page at a
 * time until this file's lock shows or the pages end. Without a path (a file not on main, such as
 * one never committed) the project's locks are read the same way, unfiltered.
 */
function useFileLock(fileId: string, path: string | undefined, ready: boolean) {
  const { projectId, base } = useProject();
  return useQuery({
    queryKey: ['project', projectId, 'locks', 'file', fileId, path ?? null],
    enabled: ready,
    queryFn: async (): Promise<Lock | null> => {
      let cursor: string | null = null;
      do {
        const page: Page<Lock> = await get<Page<Lock>>(withQuery(`${base}/locks`, { pathPrefix: path, limit: LOCKS_PER_PAGE, cursor }));
        const lock = page.data.find((held) => held.fileId === fileId);
        if (lock) return lock;
        cursor = page.nextCursor;
      } while (cursor);
      return null;
    },
  });
}

/**
 * Why a lock request took nothing, when the refreshed page does not show it: a file another user
 * locked first shows its holder; one another user is committing stays unlocked for a moment.
 */
function notTaken(result: AcquireLocksResult | undefined): string | null {
  const conflict = result?.conflicts[0];
  if (conflict?.reason === 'committing') return `${conflict.userName ?? 'Another user'} is committing this file; try again in a moment.`;
  return result?.notFound.length ? 'This file is not in the project.' : null;
}

/**
 * Who holds the file, since when and why, with what the viewer may do about it (LockActions). Only
 * an unlocked file offers to lock it: POST /locks on one's own lock would refresh it, replacing its
 * note and time, and on another's it takes nothing.
 */
function FileLock({ fileId, path, ready }: { fileId: string; path: string | undefined; ready: boolean }) {
  const lock = useFileLock(fileId, path, ready);
  const { take, release } = useLockActions();
  const [note, setNote] = useState('');
  const refused = notTaken(take.data);
  return (
    <Paper component="section" aria-label="Lock" withBorder p="sm">
      <QueryState query={lock}>
        {(held) =>
          held ? (
            <Group justify="space-between" wrap="wrap">
              <Stack gap={0}>
                <Group gap="xs">
                  <Text>
                    Locked by {held.userName} since {formatTime(held.lockedAt)}
                  </Text>
                  {held.isMine && <Badge size="xs">you</Badge>}
                </Group>
                {held.note && (
                  <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
                    {held.note}
                  </Text>
                )}
              </Stack>
              <LockActions lock={held} release={release} />
            </Group>
          ) : (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                take.mutate({ fileId, note }, { onSuccess: () => setNote('') });
              }}
            >
              <Group align="end" wrap="wrap">
                <TextInput label="Note" description="Optional: what you are changing" value={note} onChange={(e) => setNote(e.currentTarget.value)} />
                <Button type="submit" size="sm" variant="default" loading={take.isPending}>
                  Lock this file
                </Button>
              </Group>
            </form>
          )
        }
      </QueryState>
      {refused && (
        <Text role="status" size="sm">
          {refused}
        </Text>
      )}
      <ErrorNotice error={take.error ?? release.error} />
    </Paper>
  );
}
