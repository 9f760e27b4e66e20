import { Button } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api.ts';
import { useProject } from '../pages/ProjectLayout.tsx';
import type { AcquireLocksResult, Lock } from '../types.ts';
import { ConfirmButton } from './ConfirmButton.tsx';

/**
 * Take or release a lock on one file; `force` releases anyone's (owners and admins). Every project
 * query is refreshed after either, so each page showing the lock shows its new state.
 */
export function useLockActions() {
  const { projectId, base } = useProject();
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['project', projectId] });
  const take = useMutation({
    mutationFn: ({ fileId, note }: { fileId: string; note: string }) => api<AcquireLocksResult>('POST', `${base}/locks`, { fileIds: [fileId], note }),
    onSuccess: refresh,
  });
  const release = useMutation({
    mutationFn: ({ fileId, force }: { fileId: string; force: boolean }) => api('DELETE', `${base}/locks`, { fileIds: [fileId], force }),
    onSuccess: refresh,
  });
  return { take, release };
}

/**
 * What the viewer may do with a lock: its holder releases it; an owner or admin force-releases
 * another's, once confirmed, since the holder's note and time go with it; anyone else, nothing.
 */
export function LockActions({ lock, release }: { lock: Lock; release: ReturnType<typeof useLockActions>['release'] }) {
  const { manages } = useProject();
  if (lock.isMine) {
    return (
      <Button
        size="xs"
        variant="light"
        onClick={() => release.mutate({ fileId: lock.fileId, force: false })}
        loading={release.isPending && release.variables.fileId === lock.fileId}
        aria-label={`Release ${lock.path}`}
      >
        Release
      </Button>
    );
  }
  if (!manages) return null;
  return (
    <ConfirmButton
      label="Force release"
      ariaLabel={`Force release ${lock.path}`}
      title={`Force release ${lock.path}?`}
      message={`${lock.userName} holds this file${lock.note ? ` (“${lock.note}”)` : ''}. Once released, anyone may lock or commit it, and ${lock.userName} is not asked.`}
      confirm="Force release"
      onConfirm={() => release.mutate({ fileId: lock.fileId, force: true })}
    />
  );
}
