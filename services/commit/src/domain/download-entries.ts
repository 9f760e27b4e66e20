import { isVersion, MAX_INT4, normalizePath } from '@lode/contracts';
import { isUuid } from '@lode/contracts/uuid-list';

/** A file a batch asks a URL for: by id, by path (case-folded key), or by both naming one file. */
export interface WantedFile {
  /** Position in the request. */
  index: number;
  fileId: string | null;
  /** The path in NFC, as the client named it. */
  path: string | null;
  pathKey: string | null;
  /** Null: the tip on the branch. */
  version: number | null;
}

/** An entry answered `validation_failed`, naming the file as the client sent it. */
export interface MalformedEntry {
  index: number;
  fileId?: string;
  path?: string;
  error: string;
}

/**
 * Checks each entry of a batch download request on its own (docs/api.md: entries are isolated, as in
 * initiate-batch). A plain loop: a zod schema per entry would cost more than the lookup's SQL.
 */
export function readEntries(raw: readonly unknown[]): { wanted: WantedFile[]; malformed: MalformedEntry[] } {
  const wanted: WantedFile[] = [];
  const malformed: MalformedEntry[] = [];
  raw.forEach((entry, index) => {
    const read = readEntry(entry);
    if ('error' in read) malformed.push({ index, ...named(entry), error: read.error });
    else wanted.push({ index, ...read });
  });
  return { wanted, malformed };
}

function readEntry(entry: unknown): Omit<WantedFile, 'index'> | { error: string } {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { error: 'An entry must be an object with a fileId or a path' };
  const { fileId, path, version } = entry as Record<string, unknown>;
  if (fileId !== undefined && (typeof fileId !== 'string' || !isUuid(fileId))) return { error: 'fileId: must be a UUID' };
  if (path !== undefined && typeof path !== 'string') return { error: 'path: must be a string' };
  if (version !== undefined && !isVersion(version)) return { error: `version: must be an integer from 1 to ${MAX_INT4}` };
  if (fileId === undefined && path === undefined) return { error: 'An entry needs a fileId or a path' };
  const normalized = path === undefined ? null : normalizePath(path);
  if (normalized !== null && !('key' in normalized)) return { error: normalized.message };
  return {
    fileId: fileId?.toLowerCase() ?? null,
    path: normalized?.path ?? null,
    pathKey: normalized?.key ?? null,
    version: version ?? null,
  };
}

/** The id and path a malformed entry carries, where they are text, so its result says which entry it was. */
function named(entry: unknown): { fileId?: string; path?: string } {
  if (typeof entry !== 'object' || entry === null) return {};
  const { fileId, path } = entry as Record<string, unknown>;
  return { ...(typeof fileId === 'string' ? { fileId } : {}), ...(typeof path === 'string' ? { path } : {}) };
}
