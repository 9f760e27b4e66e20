import { errors, type AppError } from '@lode/errors';

export const MAX_PATH_LENGTH = 1024;
export const MAX_SEGMENT_BYTES = 255;

/**
 * Unicode's control characters (category Cc): C0, DEL and C1. C1 counts too: U+0085 is a line break
 * to some tools, and none of them is a character a file name shows.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

export interface NormalizedPath {
  /** NFC form, as stored and returned. */
  path: string;
  /** Case-folded key: studios work on case-insensitive file systems, so `A.png` and `a.png` collide. */
  key: string;
}

/**
 * Validates a project-relative path and normalizes it to NFC. Rules: forward slashes only, no
 * leading slash, no empty, `.` or `..` segments, no control characters, bounded length.
 */
export function normalizePath(raw: string): NormalizedPath | AppError {
  const invalid = (why: string) => errors.validation(`Invalid path "${raw.slice(0, 200)}": ${why}`);
  if (raw.length === 0) return invalid('it is empty');
  const path = raw.normalize('NFC');
  if (path.length > MAX_PATH_LENGTH) return invalid(`longer than ${MAX_PATH_LENGTH} characters`);
  if (path.startsWith('/')) return invalid('it must be relative to the project');
  if (path.includes('\\')) return invalid('use forward slashes');
  if (hasControlCharacter(path)) return invalid('it contains control characters');
  // A lone UTF-16 surrogate has no UTF-8 form: Postgres would store U+FFFD instead, another path.
  if (!path.isWellFormed()) return invalid('it contains an unpaired surrogate');
  for (const segment of path.split('/')) {
    if (segment === '') return invalid('it has an empty segment');
    if (segment === '.' || segment === '..') return invalid('"." and ".." segments are not allowed');
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return invalid(`a segment is longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
  return { path, key: pathKey(path) };
}

export function pathKey(nfcPath: string): string {
  return nfcPath.toLowerCase();
}
