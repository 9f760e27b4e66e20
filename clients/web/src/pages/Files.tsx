import { useState } from 'react';
import { Anchor, Breadcrumbs, Button, Group, NativeSelect, Table, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { get, withQuery } from '../api.ts';
import { DataTable } from '../components/DataTable.tsx';
import { LoadMore, QueryState } from '../components/States.tsx';
import { folderPrefix, formatBytes, formatTime } from '../format.ts';
import { usePages } from '../paging.ts';
import type { Branch, FolderChild, Lock, Page } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

export function useBranches() {
  const { projectId, base } = useProject();
  return useQuery({ queryKey: ['project', projectId, 'branches'], queryFn: () => get<Page<Branch>>(`${base}/branches?limit=200`) });
}

/**
 * The project's files by folder on a branch, with size, version and who holds each lock. The server
 * lists one folder (GET /folders): its subfolders first, each with its file count and total size at
 * any depth, then its own files, a page at a time; "Load more" brings the folder's next page.
 */
export function FilesPage() {
  const { projectId, base } = useProject();
  const [params, setParams] = useSearchParams();
  const prefix = params.get('prefix') ?? '';
  const branch = params.get('branch') ?? 'main';
  const branches = useBranches();
  const level = usePages<FolderChild>(['project', projectId, 'folders', branch, prefix], `${base}/folders`, { branch, prefix });
  const locks = useQuery({
    queryKey: ['project', projectId, 'locks', prefix],
    queryFn: () => get<Page<Lock>>(withQuery(`${base}/locks`, { pathPrefix: prefix, limit: 200 })),
  });
  const holders = new Map((locks.data?.data ?? []).map((lock) => [lock.fileId, lock]));
  const go = (next: { prefix?: string; branch?: string }) => setParams(Object.fromEntries(Object.entries({ branch, prefix, ...next }).filter(([, v]) => v)));
  const crumbs = prefix.split('/').filter(Boolean);

  return (
    <>
      <Group align="end" wrap="wrap">
        <NativeSelect
          label="Branch"
          value={branch}
          data={(branches.data?.data ?? [{ name: 'main' }]).map((b) => b.name)}
          onChange={(e) => go({ branch: e.currentTarget.value, prefix: '' })}
        />
        <FolderFilter key={prefix} prefix={prefix} onSubmit={(folder) => go({ prefix: folder })} />
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
      <QueryState query={level} isEmpty={(d) => d.data.length === 0} empty="No files on this branch yet: push some through the API.">
        {(data) => (
          <DataTable
            label="Files"
            minWidth={720}
            columns={['Name', 'Files', 'Size', 'Version', 'Locked by', 'Updated']}
            highlightOnHover
            footer={<LoadMore query={level} what="files and folders" />}
          >
            {data.data.map((child) =>
              child.type === 'folder' ? (
                <Table.Tr key={`folder:${child.name}`}>
                  <Table.Td>
                    <Anchor component="button" type="button" onClick={() => go({ prefix: child.path })}>
                      <FolderIcon /> {child.name}/
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{child.fileCount.toLocaleString()}</Table.Td>
                  <Table.Td>{formatBytes(child.totalSize)}</Table.Td>
                  <Table.Td colSpan={3} />
                </Table.Tr>
              ) : (
                <Table.Tr key={child.fileId}>
                  <Table.Td>
                    <Anchor component={Link} to={`/projects/${projectId}/files/${child.fileId}`}>
                      {child.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td />
                  <Table.Td>{formatBytes(child.size)}</Table.Td>
                  <Table.Td>v{child.version}</Table.Td>
                  <Table.Td>{holders.get(child.fileId)?.userName ?? '—'}</Table.Td>
                  <Table.Td>{formatTime(child.updatedAt)}</Table.Td>
                </Table.Tr>
              ),
            )}
          </DataTable>
        )}
      </QueryState>
    </>
  );
}

/** Jumps to a folder by its path, however deep, without loading the levels above it. */
function FolderFilter(props: { prefix: string; onSubmit: (prefix: string) => void }) {
  const [path, setPath] = useState(props.prefix);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit(folderPrefix(path));
      }}
    >
      <Group align="end" gap="xs" wrap="nowrap">
        <TextInput label="Folder path" placeholder="e.g. Levels/Forest" value={path} onChange={(e) => setPath(e.currentTarget.value)} />
        <Button type="submit" variant="default">
          Go
        </Button>
      </Group>
    </form>
  );
}

/** Drawn, not an emoji: a machine without an emoji font showed an empty box. */
function FolderIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true" style={{ verticalAlign: 'text-bottom' }}>
      <path fill="currentColor" d="M10 4H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V8a2 2 0 0 0-2-2h-8l-2-2z" />
    </svg>
  );
}
