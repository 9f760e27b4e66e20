import { lstatSync } from 'node:fs';
import { isPartialDownload } from '@lode/sdk';
import type { MonitoredChange } from './fs-monitor.ts';
import type { IgnoreTest } from './ignore-rules.ts';
import type { RecordedListing } from './monitor-record.ts';
import { localPathOf, mergeInPathOrder, underNested, type Listing, type LocalEntry, type QuietFiles } from './listed-files.ts';
import type { LocalStat, WorkspaceIndex } from './workspace-index.ts';
import { STATE_DIR, type Workspace } from './workspace.ts';

/**
 * The workspace's listing from the last one recorded and what the file monitor saw change since,
 * as the walk would make it (scan.ts), without reading a folder. A file the monitor names is looked at
 * again; any other is as the index's digest of it says (the hash cache holds every listed file,
 * each with the size and mtime it had), or one of the recorded files without a digest. The digests
 * of files named and no longer listed go, as a status would drop them.
 *
 * Where the record says which files its status compared one by one, under the records as they still
 * are and with `multipartThreshold`, every other file it listed read as unchanged at the tip, and
 * still does if neither it nor its records changed since: such files are set apart as quiet, by
 * their index lines, and not even decoded. A file sharing its key (letter case aside) with a file new
 * here is not quiet: the two are compared.
 *
 * Undefined when a nested workspace came or went: what it leaves alone changed, and the caller walks.
 */
export function applyChanges(
  workspace: Workspace,
  root: string,
  recorded: RecordedListing,
  changes: readonly MonitoredChange[],
  options: { ignores: IgnoreTest; multipartThreshold?: number },
): Listing | undefined {
  if (changes.some((change) => isNestedState(change.name))) return undefined;
  const { index } = workspace;
  const changed = new Set(changes.map((change) => change.name.normalize('NFC')));
  const localNames: Record<string, string> = {};
  for (const [projectPath, name] of Object.entries(recorded.localNames ?? {})) if (!changed.has(projectPath)) localNames[projectPath] = name;
  const looked = lookAgain(root, recorded, changes, changed, localNames, options.ignores, index);
  const listedAgain = new Set(looked.files.map((file) => file.path));
  for (const projectPath of changed) if (!listedAgain.has(projectPath)) workspace.hashes.delete(projectPath);

  const entryOf = (file: LocalStat): LocalEntry => ({ ...file, localPath: localPathOf(root, localNames[file.path] ?? file.path) });
  const compared = comparedStill(recorded, options.multipartThreshold);
  let quiet: QuietFiles | undefined;
  if (compared) {
    const newKeys = new Set(looked.files.filter((file) => !index.local.has(file.path)).map((file) => file.path.toLowerCase()));
    const { lines, count } = index.linesWithAllParts([...changed, ...compared], newKeys);
    quiet = { lines, count, entries: (flags = lines) => index.localOnLines((line) => flags[line] === 1).map(entryOf) };
  }
  const files: LocalEntry[] = [];
  for (const file of index.localListing(quiet?.lines)) if (!changed.has(file.path)) files.push(entryOf(file));
  return {
    files: looked.files.length === 0 ? files : mergeInPathOrder(files, looked.files),
    quiet,
    partials: [...recorded.partials.filter((name) => !changed.has(name.normalize('NFC'))), ...looked.partials],
    nested: recorded.nested,
    localNames,
  };
}

/**
 * The files the monitor names, and the recorded ones without a digest (which the index does not
 * list), as they are now: those that are regular files the walk would list, and the partials. A
 * name on disk that is not its project path is added to `localNames`.
 */
function lookAgain(
  root: string,
  recorded: RecordedListing,
  changes: readonly MonitoredChange[],
  changed: ReadonlySet<string>,
  localNames: Record<string, string>,
  ignores: IgnoreTest,
  index: WorkspaceIndex,
): { files: LocalEntry[]; partials: string[] } {
  const nested = underNested(recorded.nested);
  const files: LocalEntry[] = [];
  const partials: string[] = [];
  const candidates = [
    ...changes.filter((change) => change.exists && change.type === 'f').map((change) => change.name),
    ...recorded.unhashed.filter((projectPath) => !changed.has(projectPath) && !index.local.has(projectPath)).map((p) => localNames[p] ?? p),
  ];
  for (const name of candidates) {
    const projectPath = name.normalize('NFC');
    if (nested(projectPath) || ignoredOnTheWay(projectPath, ignores)) continue;
    const localPath = localPathOf(root, name);
    // Only regular files are listed, as the walk lists them: a symlink is not followed.
    const stat = lstatSync(localPath, { throwIfNoEntry: false });
    if (!stat?.isFile()) continue;
    if (isPartialDownload(name.slice(name.lastIndexOf('/') + 1))) partials.push(name);
    else if (!ignores(projectPath)) {
      files.push({ path: projectPath, localPath, size: stat.size, mtimeMs: stat.mtimeMs });
      if (name !== projectPath) localNames[projectPath] = name;
    }
  }
  return { files, partials };
}

/** The paths the recorded status compared one by one, if what it read of the others still holds. */
function comparedStill(recorded: RecordedListing, multipartThreshold: number | undefined): string[] | undefined {
  const compared = recorded.compared;
  return compared && compared.multipartThreshold === multipartThreshold ? compared.paths : undefined;
}

/** A nested workspace's state file: its coming or going changes which paths are this workspace's. */
function isNestedState(name: string): boolean {
  return name.endsWith(`/${STATE_DIR}/state.json`);
}

/** Whether a folder above the path is left alone: the walk never goes into it. */
function ignoredOnTheWay(projectPath: string, ignores: IgnoreTest): boolean {
  for (let slash = projectPath.indexOf('/'); slash >= 0; slash = projectPath.indexOf('/', slash + 1)) {
    if (ignores(projectPath.slice(0, slash + 1))) return true;
  }
  return false;
}
