import { Anchor, Badge, Code, NativeSelect, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { get } from '../api.ts';
import { QueryTable } from '../components/QueryTable.tsx';
import { QueryState } from '../components/States.tsx';
import { formatBytes, formatTime } from '../format.ts';
import { usePages } from '../paging.ts';
import type { Commit, CommitFile } from '../types.ts';
import { useBranches } from './Files.tsx';
import { useProject } from './ProjectLayout.tsx';

/** A branch's commit log, newest first; new commits appear from the live feed. */
export function CommitsPage() {
  const { projectId, base } = useProject();
  const [params, setParams] = useSearchParams();
  const branch = params.get('branch') ?? 'main';
  const branches = useBranches();
  const log = usePages<Commit>(['project', projectId, 'commits', branch], `${base}/commits`, { branch });
  return (
    <>
      <NativeSelect
        label="Branch"
        value={branch}
        maw={320}
        data={(branches.data?.data ?? [{ name: 'main' }]).map((b) => b.name)}
        onChange={(e) => setParams({ branch: e.currentTarget.value })}
      />
      <QueryTable
        query={log}
        empty="No commits on this branch yet."
        label="Commits"
        minWidth={640}
        columns={['#', 'Message', 'Files', 'Author', 'When']}
        row={(c) => (
          <Table.Tr key={c.id}>
            <Table.Td>{c.sequenceNum}</Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/projects/${projectId}/commits/${c.id}`}>
                {c.message}
              </Anchor>{' '}
              {c.kind !== 'commit' && <Badge size="xs">{c.kind}</Badge>}
            </Table.Td>
            <Table.Td>{c.fileCount}</Table.Td>
            <Table.Td>{c.authorName}</Table.Td>
            <Table.Td>{formatTime(c.createdAt)}</Table.Td>
          </Table.Tr>
        )}
      />
    </>
  );
}

/** One commit and the files it changed. */
export function CommitPage() {
  const { projectId, base } = useProject();
  const { commitId = '' } = useParams();
  const commit = useQuery({
    queryKey: ['project', projectId, 'commit', commitId],
    queryFn: () => get<Commit>(`${base}/commits/${encodeURIComponent(commitId)}`),
  });
  const files = usePages<CommitFile>(['project', projectId, 'commit', commitId, 'files'], `${base}/commits/${encodeURIComponent(commitId)}/files`);
  return (
    <>
      <Anchor component={Link} to={`/projects/${projectId}/commits`}>
        ← Commits
      </Anchor>
      <QueryState query={commit}>
        {(c) => (
          <Title order={3}>
            #{c.sequenceNum} {c.message} <Badge>{c.branch}</Badge>
          </Title>
        )}
      </QueryState>
      <QueryTable
        query={files}
        empty="This commit changed no files."
        label="Changed files"
        minWidth={560}
        columns={['Path', 'Change', 'Version', 'Size', 'SHA-256']}
        row={(f) => (
          <Table.Tr key={f.fileId}>
            <Table.Td>
              <Anchor component={Link} to={`/projects/${projectId}/files/${f.fileId}`}>
                {f.path}
              </Anchor>
            </Table.Td>
            <Table.Td>{f.action}</Table.Td>
            <Table.Td>{f.version === null ? '—' : `v${f.version}`}</Table.Td>
            <Table.Td>{f.size === null ? '—' : formatBytes(f.size)}</Table.Td>
            <Table.Td>{f.sha256 ? <Code>{f.sha256.slice(0, 12)}…</Code> : '—'}</Table.Td>
          </Table.Tr>
        )}
      />
    </>
  );
}
