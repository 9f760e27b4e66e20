import { DEFAULT_MULTIPART_THRESHOLD, pathProblem, type Branch, type LodeClient, type SyncRow, type SyncStatus } from '@lode/sdk';
import { compareWithBranch } from './compare-branch.ts';
import { CliError, EXIT } from './failure.ts';
import { tipRow, type ListedFiles } from './incremental-status.ts';
import type { RemoteTree } from './remote-tree.ts';
import { comparePaths } from './index-format.ts';
import type { LocalEntry, UnchangedFiles } from './listed-files.ts';
import { hashEntries, scanWorkspace, type HashedEntry } from './scan.ts';
import type { CachedDigest, SyncedFile, Workspace } from './workspace.ts';

/**
 * The most files compared one by one whose paths the file monitor's record keeps (monitor-record.ts):
 * past it, the next status decodes every file's line rather than read a record that large.
 */
const MAX_RECORDED_COMPARED = 10_000;

/** The server's seven statuses, plus a file this workspace synced and has since deleted (push records the deletion). */
export type FileStatus = SyncStatus | 'deleted_local';

export const STATUS_ORDER: readonly FileStatus[] = [
  'conflict',
  'modified',
  'local_only',
  'deleted_local',
  'outdated',
  'missing',
  'deleted_remote',
  'up_to_date',
];

export interface StatusEntry {
  path: string;
  status: FileStatus;
  row: SyncRow;
  /** The file on disk, when there is one. */
  local?: HashedEntry;
}

export interface UnstorableFile {
  path: string;
  problem: string;
  /** A file the server holds under a name stored before its rule refused it: never downloaded here. */
  remote: boolean;
  /** The remote file's id. */
  fileId?: string | null;
}

export interface WorkspaceStatus {
  branch: string;
  /** The branch's own latest commit (null before its first), and where it was forked from. */
  head: Pick<Branch, 'headSequenceNum' | 'forkedFrom'>;
  /** The project's latest commit, on any branch. */
  latestCommitSeq: number;
  /** Every file's entry, in path order: made when first read, a listing of the whole workspace. */
  readonly entries: StatusEntry[];
  /** The entries of the files that are not up to date, in path order: what a push or pull acts on. */
  changes: StatusEntry[];
  /** How many files are up to date. */
  upToDate: number;
  /** Local files whose paths differ only in letter case: one file to the project (push refuses them). */
  caseCollisions: string[][];
  /** Files whose names the API cannot store (a control character, a backslash…): never synced. */
  unstorable: UnstorableFile[];
  /** Workspaces inside this one, left alone both ways (scan.ts). */
  nested: string[];
  /** Downloads' temporary files on disk (scan.ts). */
  partials: string[];
  /** The record of the branch's tree as this status left it (compare-branch.ts), when the branch is the workspace's. */
  tree?: RemoteTree;
  /** Whether the workspace was listed from the file monitor's record and changes, or walked (scan.ts). */
  listedBy: 'monitor' | 'walk';
  /** Why the file monitor, though on, did not list the workspace: it was walked. */
  monitorProblem?: string;
}

/**
 * Scans and hashes the workspace (hash cache first) and asks the server how each file stands, with
 * the last synced version as `baseVersion`, so an edit on both sides reads as `conflict`. Paths
 * `.lodeignore` names are left out both ways: none is uploaded or deleted, none downloaded or removed.
 * Updates the workspace's record of what it has synced (saved by the caller) when `branch` is the
 * workspace's, or becomes it: `follow` makes the workspace follow `branch` once it is known to exist.
 * `multipartThreshold`: files from this size are hashed for a multipart upload (scan.ts, hashEntries).
 * The server is asked only what changed since the last status where the workspace has a record of
 * the branch (compare-branch.ts); `full` sends the whole workspace, as when there is none, and
 * walks it even with the file monitor on.
 */
export async function workspaceStatus(
  client: LodeClient,
  workspace: Workspace,
  branch: string,
  signal?: AbortSignal,
  options: { follow?: boolean; multipartThreshold?: number; full?: boolean } = {},
): Promise<WorkspaceStatus> {
  const multipartThreshold = options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD;
  // The branch is asked about while the workspace is listed: neither waits for the other.
  const [head, scanned] = await Promise.all([
    requireBranch(client, branch, workspace.state.branch, signal),
    scanWorkspace(workspace, { walk: options.full, multipartThreshold }),
  ]);
  if (options.follow) workspace.follow(branch);
  // One such name in a sync would fail the whole request: they are set aside and reported instead.
  const unstorable: UnstorableFile[] = [];
  for (const e of scanned.files) {
    const problem = pathProblem(e.path);
    if (problem) unstorable.push({ path: e.path, problem, remote: false });
  }
  const setAside = new Set(unstorable.map((u) => pathKey(u.path)));
  const storable = setAside.size === 0 ? scanned.files : scanned.files.filter((e) => !setAside.has(pathKey(e.path)));
  const collisions = caseCollisions(storable.map((e) => e.path));
  const listed: ListedFiles = {
    entries: storable,
    quiet: scanned.quiet,
    colliding: new Set(collisions.flat()),
    multipartThreshold,
    hash: (entries, cached) => hashEntries(workspace, entries, signal, multipartThreshold, cached),
  };
  const { rows, hashed, unchanged, latestCommitSeq, tree } = await compareWithBranch(client, workspace, branch, listed, { signal, full: options.full });
  // Every listed file now has its digest in the index, but those set aside.
  if (scanned.listing) {
    const compared = hashed.length <= MAX_RECORDED_COMPARED ? { paths: hashed.map((e) => e.path), multipartThreshold } : undefined;
    workspace.recordListing({ ...scanned.listing, unhashed: unstorable.map((u) => u.path), compared });
  }
  const byPath = new Map<string, HashedEntry>();
  for (const e of hashed) byPath.set(e.path, e);
  if (branch === workspace.state.branch) recordSynced(workspace, rows, byPath, unchanged);
  const compared: StatusEntry[] = [];
  for (const row of rows) {
    const here = byPath.get(row.path);
    if (!here && scanned.ignores(row.path)) continue;
    // An up_to_date row stays so whatever was synced: the record is not decoded for it.
    const status = row.status === 'up_to_date' ? row.status : localStatus(row, workspace.state.files.get(row.path), here?.digest.sha256);
    // A file stored under a name the rule now refuses is not downloaded: here it could be neither
    // synced nor pushed. One this workspace synced and has since deleted (or renamed) stays, so that
    // push deletes it for the team: a commit names files by id, which the rule does not touch.
    const problem = !here && status === 'missing' ? pathProblem(row.path) : undefined;
    if (problem) {
      if (!setAside.has(pathKey(row.path))) unstorable.push({ path: row.path, problem, remote: true, fileId: row.fileId });
      continue;
    }
    compared.push({ path: row.path, status, row, local: here });
  }
  // Local and remote-only files in one path order, whichever side each came from.
  compared.sort((a, b) => comparePaths(a.path, b.path));
  const changes = compared.filter((e) => e.status !== 'up_to_date');
  let entries: StatusEntry[] | undefined;
  return {
    branch,
    head,
    latestCommitSeq,
    get entries() {
      entries ??=
        unchanged.count === 0 ? compared : [...compared, ...unchangedEntries(workspace, unchanged.entries())].sort((a, b) => comparePaths(a.path, b.path));
      return entries;
    },
    changes,
    upToDate: compared.length - changes.length + unchanged.count,
    caseCollisions: collisions,
    unstorable,
    nested: scanned.nested,
    partials: scanned.partials,
    tree,
    listedBy: scanned.fromMonitor ? 'monitor' : 'walk',
    monitorProblem: scanned.monitorProblem,
  };
}

/** The entries of files read as synced at the tip (incremental-status.ts), made from the records as the comparison would have made them. */
function unchangedEntries(workspace: Workspace, unchanged: readonly LocalEntry[]): StatusEntry[] {
  return unchanged.map((e) => {
    const digest = workspace.hashes.get(e.path) as CachedDigest;
    const row = tipRow(e.path, 'up_to_date', workspace.index.remote.get(e.path.toLowerCase()));
    return { path: e.path, status: 'up_to_date', row, local: { path: e.path, localPath: e.localPath, size: e.size, mtimeMs: e.mtimeMs, digest } };
  });
}

/**
 * What the workspace makes of the server's row, knowing what it synced last (`here`: the file's
 * SHA-256 on disk, if any).
 * - A file it never synced whose path a teammate has committed meanwhile is a conflict, not an edit:
 *   pushing it would replace their version unseen (the server, sent no baseVersion, can only say
 *   `modified`).
 * - A file at a path deleted on the branch, with no record here (this workspace saw the deletion,
 *   or never had the file), is new: put back or added again, not an edit of anything, and nothing
 *   for pull to remove.
 * - A file whose content is still the version this workspace last synced is no edit of the user's,
 *   whatever the server makes of content it does not know on this branch: synced on the branch the
 *   workspace followed before (push.ts, pull.ts), it is that branch's version. Pull replaces it with
 *   this branch's, or removes it where this branch has none, as switching a git checkout does.
 */
export function localStatus(row: SyncRow, synced: SyncedFile | undefined, here?: string): FileStatus {
  const tipDeleted = row.fileId !== null && row.remoteVersion === null;
  if (here !== undefined && synced?.sha256 === here && (row.status === 'modified' || row.status === 'conflict' || row.status === 'local_only'))
    return tipDeleted || row.status === 'local_only' ? 'deleted_remote' : 'outdated';
  if (tipDeleted && synced === undefined && (row.status === 'modified' || row.status === 'deleted_remote')) return 'local_only';
  if (row.status === 'modified' && synced === undefined && row.remoteVersion !== null) return 'conflict';
  // Remote-only, synced here before at the version the server still has: deleted locally since.
  if (row.status === 'missing' && synced !== undefined && synced.version === row.remoteVersion) return 'deleted_local';
  return row.status;
}

/**
 * Brings the record of synced versions up to date with what both sides now agree on: a file whose
 * content is the branch's tip is synced at that version, and a path gone both here and on the branch
 * is forgotten, so a file brought back later is new rather than "edited here, deleted there" for ever.
 * `unchanged` files, as synced at the tip, have nothing to record and stay: the synced paths are
 * gone through only when there are more of them than of files here or live remotely.
 */
function recordSynced(workspace: Workspace, rows: readonly SyncRow[], local: ReadonlyMap<string, HashedEntry>, unchanged: UnchangedFiles): void {
  const liveRemotely = new Set<string>();
  for (const row of rows) {
    if (row.remoteVersion !== null && !local.has(row.path)) liveRemotely.add(row.path);
    if (row.status === 'up_to_date' && row.fileId && row.remoteVersion && row.remoteSha256)
      workspace.recordSynced(row.path, row.fileId, row.remoteVersion, row.remoteSha256);
  }
  const synced = workspace.state.files;
  let kept = unchanged.count;
  for (const path of local.keys()) if (synced.has(path)) kept += 1;
  for (const path of liveRemotely) if (synced.has(path)) kept += 1;
  if (kept === synced.size) return;
  const here = new Set([...local.keys(), ...unchanged.entries().map((e) => e.path)]);
  for (const path of synced.keys()) if (!here.has(path) && !liveRemotely.has(path)) workspace.forgetSynced(path);
}

/**
 * Sync answers a branch that does not exist as main (what a commit to it would start from): a
 * misspelt or deleted branch would show main's files as the branch's, and a push would create it.
 */
async function requireBranch(client: LodeClient, branch: string, workspaceBranch: string, signal?: AbortSignal): Promise<Branch> {
  const found = await findBranch(client, branch, signal);
  if (found) return found;
  const fix = `\`lode branch list\` shows the branches; \`lode branch create ${branch}\` makes it`;
  throw new CliError(
    branch === workspaceBranch
      ? `This workspace is on branch "${branch}", which does not exist (deleted, or never created): ${fix}, or give --branch.`
      : `Branch "${branch}" does not exist: ${fix}.`,
    { exitCode: EXIT.usage, code: 'branch_not_found', details: { branch } },
  );
}

/** Whether a branch exists; main always does. */
export async function branchExists(client: Pick<LodeClient, 'listBranches'>, name: string, signal?: AbortSignal): Promise<boolean> {
  return name === 'main' || (await findBranch(client, name, signal)) !== null;
}

/** Pages through the branches, which the API lists main first, then by the bytes of their names, only as far as `name`'s place. */
export async function findBranch(client: Pick<LodeClient, 'listBranches'>, name: string, signal?: AbortSignal): Promise<Branch | null> {
  const bytes = Buffer.from(name);
  for (let cursor: string | undefined; ;) {
    const page = await client.listBranches({ limit: 200, cursor }, { signal });
    const found = page.data.find((b) => b.name === name);
    if (found) return found;
    const last = page.data.at(-1);
    if (!page.nextCursor || (last && last.name !== 'main' && Buffer.compare(Buffer.from(last.name), bytes) > 0)) return null;
    cursor = page.nextCursor;
  }
}

/**
 * The groups of paths (NFC) that name one file to the project, which compares paths ignoring letter
 * case as the studios' Windows and macOS file systems do (docs/api.md, Paths), in path order.
 */
export function caseCollisions(paths: readonly string[]): string[][] {
  // Of two paths with one key, at least one is not its own key: only such keys are looked for, so
  // that a workspace of paths in lower case costs no map entry per path.
  const keys = new Set<string>();
  for (const p of paths) {
    const key = pathKey(p);
    if (key !== p) keys.add(key);
  }
  if (keys.size === 0) return [];
  const groups = new Map<string, string[]>();
  for (const p of paths) {
    const key = pathKey(p);
    if (!keys.has(key)) continue;
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  return [...groups.values()]
    .filter((group) => group.length > 1)
    .map((group) => group.sort(comparePaths))
    .sort((a, b) => comparePaths(a[0], b[0]));
}

/** What names one file to the project: its NFC path ignoring letter case (docs/api.md, Paths). */
export function pathKey(nfcPath: string): string {
  return nfcPath.toLowerCase();
}

export function groupByStatus(entries: StatusEntry[]): Map<FileStatus, StatusEntry[]> {
  const groups = new Map<FileStatus, StatusEntry[]>();
  for (const status of STATUS_ORDER) groups.set(status, []);
  for (const entry of entries) groups.get(entry.status)?.push(entry);
  return groups;
}

/**
 * The changes (entries not up to date) within `scopes`; a scope that names no file of the workspace
 * or of the branch is a usage error (a typo, or a path .lodeignore leaves alone), not "nothing to do".
 */
export function scopedChanges(status: WorkspaceStatus, scopes: string[]): StatusEntry[] {
  if (scopes.length === 0) return status.changes;
  // Every file and every folder above one, once: each scope is then one lookup, however many there are.
  // Set-aside names count, so that naming one reaches push's refusal of it, not "no such file".
  const named = new Set<string>();
  for (const file of [...status.entries, ...status.unstorable]) {
    for (let p = file.path; p !== '' && !named.has(p); p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') named.add(p);
  }
  // '' is the workspace root (`lode pull .`), which holds whatever there is, nothing included.
  const unmatched = scopes.filter((scope) => scope !== '' && !named.has(scope.replace(/\/$/, '')));
  if (unmatched.length > 0) {
    throw new CliError(`${unmatched.join(', ')}: no such file or folder in the workspace or on ${status.branch} (misspelt, or left alone by .lodeignore).`, {
      exitCode: EXIT.usage,
      code: 'no_such_path',
      details: { paths: unmatched },
    });
  }
  return status.changes.filter((e) => inScope(e.path, scopes));
}

/** Whether a project path is one of `scopes` or under one (no scopes: everything). */
export function inScope(projectPath: string, scopes: string[]): boolean {
  return scopes.length === 0 || scopes.some((s) => s === '' || projectPath === s || projectPath.startsWith(`${s.replace(/\/$/, '')}/`));
}
