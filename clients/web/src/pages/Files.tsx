import { useState } from 'react';
import { Anchor, Breadcrumbs, Group, NativeSelect, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { get, withQuery } from '../api.ts';
import { DataTable } from '../components/DataTable.tsx';
import { QueryState } from '../components/States.tsx';
import { folderView, formatBytes, formatTime } from '../format.ts';
import type { Branch, Lock, Page, TreeFile } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

const PAGE = 200;

export function useBranches() {
  const { projectId, base } = useProject();
  return useQuery({ queryKey: ['project', projectId, 'branches'], queryFn: () => get<Page<Branch>>(`${base}/branches?limit=200`) });
}

/** The project's files by folder on a branch, with size, version and who holds each lock. */
export function FilesPage() {
  const { projectId, base } = useProject();
  const [params, setParams] = useSearchParams();
  const prefix = params.get('prefix') ?? '';
  const branch = params.get('branch') ?? 'main';
  const [filter, setFilter] = useState('');
  const branches = useBranches();
  const tree = useQuery({
    queryKey: ['project', projectId, 'files', branch, prefix],
    queryFn: () => get<Page<TreeFile>>(withQuery(`${base}/files`, { branch, prefix, limit: PAGE })),
  });
  const locks = useQuery({
    queryKey: ['project', projectId, 'locks', prefix],
    queryFn: () => get<Page<Lock>>(withQuery(`${base}/locks`, { pathPrefix: prefix, limit: 200 })),
  });
  const holders = new Map((locks.data?.data ?? []).map((lock) => [lock.fileId, lock]));
  const go = (next: { prefix?: string; branch?: string }) => setParams(Object.fromEntries(Object.entries({ branch, prefix, ...next }).filter(([, v]) => v)));
  const crumbs = prefix.split('/').filter(Boolean);
  const matches = (path: string) => path.toLowerCase().includes(filter.toLowerCase());

  return (
    <>
      <Group align="end" wrap="wrap">
        <NativeSelect
          label="Branch"
          value={branch}
          data={(branches.data?.data ?? [{ name: 'main' }]).map((b) => b.name)}
          onChange={(e) => go({ branch: e.currentTarget.value, prefix: '' })}
        />
        <TextInput label="Filter by path" placeholder="e.g. forest" value={filter} onChange={(e) => setFilter(e.currentTarget.value)} />
      </Group>
      <Breadcrumbs aria-label="Folder">
        <Anchor component="button" type="button" onClick={() => go({ prefix: '' })}>
          All files
        </Anchor>
        {crumbs.map((name, i) => (
          <Anchor key={i} component="button" type="button" onClick={() => go({ prefix: `${crumbs.slice(0, i + 1).join('/')}/` })}>
            {name}
          </Anchor>
        ))}
      </Breadcrumbs>
      <QueryState query={tree} isEmpty={(d) => d.data.length === 0} empty={prefix ? 'No files in this folder.' : 'No files on this branch yet: push some through the API.'}>
        {(data) => {
          const view = folderView(prefix, data.data);
          return (
            <DataTable
              label="Files"
              minWidth={640}
              columns={['Name', 'Size', 'Version', 'Locked by', 'Updated']}
              highlightOnHover
              footer={
                data.nextCursor && (
                  <Text size="sm" c="dimmed">
                    Showing the first {PAGE} files under this folder: open a folder or filter to narrow it down.
                  </Text>
                )
              }
            >
              {view.folders.filter(matches).map((folder) => (
                <Table.Tr key={folder}>
                  <Table.Td colSpan={5}>
                    <Anchor component="button" type="button" onClick={() => go({ prefix: folder })}>
                      📁 {folder.slice(prefix.length)}
                    </Anchor>
                  </Table.Td>
                </Table.Tr>
              ))}
              {view.files.filter((f) => matches(f.path)).map((file) => (
                <Table.Tr key={file.fileId}>
                  <Table.Td>
                    <Anchor component={Link} to={`/projects/${projectId}/files/${file.fileId}`}>
                      {file.path.slice(prefix.length)}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{formatBytes(file.size)}</Table.Td>
                  <Table.Td>v{file.version}</Table.Td>
                  <Table.Td>{holders.get(file.fileId)?.userName ?? '—'}</Table.Td>
                  <Table.Td>{formatTime(file.updatedAt)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
          );
        }}
      </QueryState>
    </>
  );
}
