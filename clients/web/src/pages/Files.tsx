import { useState } from 'react';
import { Anchor, Breadcrumbs, Button, Group, NativeSelect, Table, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { get, withQuery } from '../api.ts';
import { DataTable } from '../components/DataTable.tsx';
import { LoadMore, QueryState } from '../components/States.tsx';
import { folderPrefix, folderView, formatBytes, formatTime } from '../format.ts';
import { usePages } from '../paging.ts';
import type { Branch, Lock, Page, TreeFile } from '../types.ts';
import { useProject } from './ProjectLayout.tsx';

export function useBranches() {
  const { projectId, base } = useProject();
  return useQuery({ queryKey: ['project', projectId, 'branches'], queryFn: () => get<Page<Branch>>(`${base}/branches?limit=200`) });
}

/**
 * The project's files by folder on a branch, with size, version and who holds each lock. The server
 * lists the folder (the tree's `prefix`: every file under it, in path order) a page at a time; the
 * subfolders and files shown are those of the pages loaded, and "Load more" brings the next.
 */
export function FilesPage() {
  const { projectId, base } = useProject();
  const [params, setParams] = useSearchParams();
  const prefix = params.get('prefix') ?? '';
  const branch = params.get('branch') ?? 'main';
  const branches = useBranches();
  const tree = usePages<TreeFile>(['project', projectId, 'files', branch, prefix], `${base}/files`, { branch, prefix });
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
      <QueryState query={tree} isEmpty={(d) => d.data.length === 0} empty={prefix ? 'No files in this folder.' : 'No files on this branch yet: push some through the API.'}>
        {(data) => {
          const view = folderView(prefix, data.data);
          return (
            <DataTable label="Files" minWidth={640} columns={['Name', 'Size', 'Version', 'Locked by', 'Updated']} highlightOnHover footer={<LoadMore query={tree} what="files" />}>
              {view.folders.map((folder) => (
                <Table.Tr key={folder}>
                  <Table.Td colSpan={5}>
                    <Anchor component="button" type="button" onClick={() => go({ prefix: folder })}>
                      <FolderIcon /> {folder.slice(prefix.length)}
                    </Anchor>
                  </Table.Td>
                </Table.Tr>
              ))}
              {view.files.map((file) => (
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

/** Jumps to a folder by its path; the server filters (the tree's `prefix`), so it finds folders on pages not loaded yet. */
function FolderFilter(props: { prefix: string; onSubmit: (prefix: string) => void }) {
  const [path, setPath] = useState(props.prefix);
  return (
    <form onSubmit={(e) => { e.preventDefault(); props.onSubmit(folderPrefix(path)); }}>
      <Group align="end" gap="xs" wrap="nowrap">
        <TextInput label="Folder path" placeholder="e.g. Levels/Forest" value={path} onChange={(e) => setPath(e.currentTarget.value)} />
        <Button type="submit" variant="default">Go</Button>
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
