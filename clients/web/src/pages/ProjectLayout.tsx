import { Anchor, Badge, Breadcrumbs, Group, ScrollArea, Stack, Tabs, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, Outlet, useLocation, useNavigate, useOutletContext, useParams } from 'react-router';
import { get, projectPath } from '../api.ts';
import { QueryState } from '../components/States.tsx';
import { useLiveProject } from '../live.ts';
import type { ProjectOverview } from '../types.ts';

const TABS = [
  ['files', 'Files'],
  ['commits', 'Commits'],
  ['branches', 'Branches'],
  ['locks', 'Locks'],
  ['storage', 'Storage'],
  ['keys', 'API keys'],
  ['members', 'Members'],
  ['settings', 'Settings'],
] as const;

export interface ProjectContext {
  projectId: string;
  overview: ProjectOverview;
  /** Owners and admins manage keys, members, settings and the storage quota, and may force locks. */
  manages: boolean;
  /** The project's API base path. */
  base: string;
}

export function useProject(): ProjectContext {
  return useOutletContext<ProjectContext>();
}

/** A project's header and tabs; its pages read the project from the outlet context. */
export function ProjectLayout() {
  const { projectId = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  useLiveProject(projectId);
  const overview = useQuery({ queryKey: ['project', projectId, 'overview'], queryFn: () => get<ProjectOverview>(`${projectPath(projectId)}/overview`) });
  const tab = location.pathname.split('/')[3] ?? 'files';
  return (
    <QueryState query={overview}>
      {(data) => (
        <Stack>
          <Breadcrumbs>
            <Anchor component={Link} to="/">
              {data.org.name}
            </Anchor>
            <span>{data.project.name}</span>
          </Breadcrumbs>
          <Group>
            <Title order={2}>{data.project.name}</Title>
            <Badge variant="light">{data.role}</Badge>
          </Group>
          <ScrollArea type="auto" offsetScrollbars>
            <Tabs value={tab} onChange={(value) => value && void navigate(`/projects/${projectId}/${value}`)}>
              <Tabs.List style={{ flexWrap: 'nowrap' }}>
                {TABS.map(([value, label]) => (
                  <Tabs.Tab key={value} value={value}>
                    {label}
                  </Tabs.Tab>
                ))}
              </Tabs.List>
            </Tabs>
          </ScrollArea>
          <Outlet context={{ projectId, overview: data, manages: data.role !== 'member', base: projectPath(projectId) } satisfies ProjectContext} />
        </Stack>
      )}
    </QueryState>
  );
}
