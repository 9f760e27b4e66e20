import { chunk, MAX_BATCH, type DownloadResult, type LodeClient } from '@lode/sdk';
import { CliError, EXIT } from './failure.ts';
import { Workspace } from './workspace.ts';

export interface NamedFile {
  path: string;
  fileId: string;
}

/** The workspace when the current folder is in one; commands that name files also work outside one. */
export async function optionalWorkspace(): Promise<Workspace | null> {
  try {
    return await Workspace.find();
  } catch {
    return null;
  }
}

/**
 * File ids of paths given on the command line: paths on disk inside a workspace (its synced state
 * knows their ids), project paths otherwise, looked up on the branch through batch download URLs.
 * `orLocked`: a path on no branch may still be locked (a Git LFS user locks a path before anything
 * is pushed there), so an unlock finds it among the locks.
 */
export async function resolveFiles(
  client: LodeClient,
  workspace: Workspace | null,
  paths: string[],
  branch: string | undefined,
  signal: AbortSignal,
  options: { orLocked?: boolean } = {},
): Promise<NamedFile[]> {
  const projectPaths = paths.map((p) => (workspace ? workspace.projectPath(p) : p.replace(/^\/+/, '')));
  const known = projectPaths.map((p) => workspace?.state.files.get(p));
  const unknown = projectPaths.filter((_, i) => !known[i]);
  // download-urls takes at most 1,000 paths a call; lock and unlock take any number.
  const looked: DownloadResult[] = [];
  for (const batch of chunk(unknown, MAX_BATCH))
    looked.push(
      ...(await client.downloadUrls(
        batch.map((path) => ({ path })),
        branch,
        { signal },
      )),
    );
  const found = new Map(unknown.map((p, i) => [p, looked[i]]));
  const locked = options.orLocked
    ? await lockedFiles(
        client,
        unknown.filter((p) => !found.get(p)?.fileId),
        signal,
      )
    : new Map<string, NamedFile>();
  return projectPaths.map((path, i) => {
    const synced = known[i];
    if (synced) return { path, fileId: synced.fileId };
    const result = found.get(path);
    if (result?.fileId) return { path: result.path ?? path, fileId: result.fileId };
    const lock = locked.get(path.toLowerCase());
    if (lock) return lock;
    throw new CliError(`${path} is not a file of the project${branch ? ` on ${branch}` : ''} (never committed, or misspelled).`, {
      exitCode: EXIT.usage,
      code: 'not_found',
    });
  });
}

/** The locked files among paths on no branch, by case-folded path (a project path is unique in any case). */
async function lockedFiles(client: LodeClient, paths: readonly string[], signal: AbortSignal): Promise<Map<string, NamedFile>> {
  const found = new Map<string, NamedFile>();
  for (const path of paths) {
    const page = await client.listLocks({ pathPrefix: path, limit: 1 }, { signal });
    const lock = page.data[0];
    if (lock && lock.path.toLowerCase() === path.toLowerCase()) found.set(path.toLowerCase(), { path: lock.path, fileId: lock.fileId });
  }
  return found;
}
