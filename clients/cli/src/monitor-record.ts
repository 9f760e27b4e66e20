import { access, rm } from 'node:fs/promises';
import path from 'node:path';
import { readJsonFile, writeJsonFile } from './json-file.ts';

const FORMAT = 1;

/**
 * `.lode/monitor.json`: present while the file monitor is on (`lode monitor on`). Once a listing of
 * the workspace has been made and hashed with the monitor watching, it also says where the monitor
 * stood just before that listing, and holds what of the listing the index does not: with it, the
 * next listing is the index's files with the monitor's changes since applied, no walk.
 */
export interface MonitorRecord {
  format: number;
  /** Set with the rest once a listing has been recorded. */
  listing?: RecordedListing;
  /**
   * The socket Watchman was last reached on (fs-monitor.ts): the next command connects to it
   * directly. A shortcut only, optional in this format: a record without it (an older CLI's drops it)
   * connects as it always did, and a socket no longer there is found again.
   */
  socket?: string;
}

export interface RecordedListing {
  /** The monitor's clock taken before the listing: every change after it is reported since it. */
  clock: string;
  /** The ignore rules the listing was made under (ignore-rules.ts): other rules list other files. */
  rules: string;
  /** Listed files the index has no digest of (names the API cannot store, never hashed). */
  unhashed: string[];
  /** Downloads' temporary files found, as names relative to the workspace root (`/`-separated). */
  partials: string[];
  /** Workspaces nested inside (project paths of their roots). */
  nested: string[];
  /** The names on disk (relative, `/`-separated) of listed files whose project path (NFC) differs, by project path. */
  localNames?: Record<string, string>;
  /**
   * What the status of this listing compared one by one, when that was few files: the others read as
   * unchanged at the tip, and still do while neither they nor the records change (monitored-listing.ts).
   */
  compared?: ComparedFiles;
  /**
   * The records as the command that made the listing left them (workspace-index.ts, stamp), set as
   * they are saved: records written since by another command may lack a digest of the listing's.
   */
  stamp?: string;
}

export interface ComparedFiles {
  paths: string[];
  /** The threshold the status hashed with: whether a file reads as unchanged depends on it. */
  multipartThreshold: number;
}

const file = (stateDir: string) => path.join(stateDir, 'monitor.json');

/**
 * The record in `stateDir`, undefined while the monitor is off; one of another format counts as on
 * with no listing, and a part of it that is not as written is left out.
 */
export async function readMonitorRecord(stateDir: string): Promise<MonitorRecord | undefined> {
  const record = await readJsonFile<MonitorRecord | null>(file(stateDir), null).catch((): MonitorRecord => ({ format: FORMAT }));
  if (!record) return undefined;
  if (record.format !== FORMAT) return { format: FORMAT };
  return {
    format: FORMAT,
    listing: validListing(record.listing) ? record.listing : undefined,
    socket: typeof record.socket === 'string' && record.socket !== '' ? record.socket : undefined,
  };
}

export async function writeMonitorRecord(stateDir: string, { listing, socket }: Omit<MonitorRecord, 'format'> = {}): Promise<MonitorRecord> {
  const record = { format: FORMAT, listing, socket };
  await writeJsonFile(file(stateDir), record);
  return record;
}

/** Whether the record is still there: `lode monitor off` may have removed it while a command ran. */
export function monitorStillOn(stateDir: string): Promise<boolean> {
  return access(file(stateDir)).then(
    () => true,
    () => false,
  );
}

export function removeMonitorRecord(stateDir: string): Promise<void> {
  return rm(file(stateDir), { force: true });
}

const strings = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string');

function validListing(l: Partial<RecordedListing> | null | undefined): boolean {
  if (l === undefined) return true;
  return (
    typeof l === 'object' &&
    l !== null &&
    typeof l.clock === 'string' &&
    typeof l.rules === 'string' &&
    strings(l.unhashed) &&
    strings(l.partials) &&
    strings(l.nested) &&
    (l.localNames === undefined || (typeof l.localNames === 'object' && l.localNames !== null && strings(Object.values(l.localNames)))) &&
    (l.compared === undefined ||
      (typeof l.compared === 'object' && l.compared !== null && strings(l.compared.paths) && Number.isSafeInteger(l.compared.multipartThreshold))) &&
    (l.stamp === undefined || typeof l.stamp === 'string')
  );
}
