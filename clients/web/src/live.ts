import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { projectPath } from './api.ts';
import { LIVE_TYPES } from './events.ts';

/**
 * Keeps a project's pages current: every event of the project's live feed (Server-Sent Events,
 * the session cookie authenticates it) refreshes what the project's pages show. EventSource
 * reconnects by itself and resumes with Last-Event-ID.
 */
export function useLiveProject(projectId: string): void {
  const client = useQueryClient();
  useEffect(() => {
    const source = new EventSource(`${projectPath(projectId)}/events?types=${LIVE_TYPES.join(',')}`);
    const refresh = () => void client.invalidateQueries({ queryKey: ['project', projectId] });
    for (const type of [...LIVE_TYPES, 'reset']) source.addEventListener(type, refresh);
    return () => source.close();
  }, [client, projectId]);
}
