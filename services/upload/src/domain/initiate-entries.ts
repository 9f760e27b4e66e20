import { errors, type AppError } from '@lode/errors';
import { normalizePath, upload } from '@lode/contracts';
import { multipartRefusal } from './multipart-parts.ts';

export interface ValidEntry {
  index: number;
  path: string;
  pathKey: string;
  sha256: string;
  size: number;
  /** The whole file's MD5, signed into its single PUT; '' for a multipart entry, whose parts sign theirs. */
  contentMd5: string;
  multipart?: upload.MultipartRequest | undefined;
}

export interface InvalidEntry {
  index: number;
  path: string;
  error: AppError;
}

/**
 * Checks each entry of an initiate batch on its own: entries are isolated. A path listed
 * twice, in any case, is refused after its first occurrence: one batch reserves one version per file.
 */
export function validateEntries(raw: readonly unknown[]): { valid: ValidEntry[]; invalid: InvalidEntry[] } {
  const valid: ValidEntry[] = [];
  const invalid: InvalidEntry[] = [];
  const seen = new Set<string>();
  raw.forEach((entry, index) => {
    const rawPath = typeof (entry as { path?: unknown })?.path === 'string' ? (entry as { path: string }).path : '';
    const parsed = upload.initiateFileSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'entry';
      invalid.push({ index, path: rawPath, error: errors.validation(`${field}: ${issue?.message ?? 'invalid'}`) });
      return;
    }
    const file = parsed.data;
    const maxSize = file.multipart ? upload.MAX_MULTIPART_FILE_SIZE : upload.MAX_FILE_SIZE;
    if (file.size > maxSize) {
      invalid.push({ index, path: file.path, error: errors.fileTooLarge(file.size, maxSize) });
      return;
    }
    const badParts = file.multipart && multipartRefusal(file.size, file.multipart);
    if (badParts) {
      invalid.push({ index, path: file.path, error: errors.validation(badParts) });
      return;
    }
    const normalized = normalizePath(file.path);
    if (!('key' in normalized)) {
      invalid.push({ index, path: file.path, error: normalized });
      return;
    }
    if (seen.has(normalized.key)) {
      invalid.push({ index, path: file.path, error: errors.validation(`Path "${file.path}" appears more than once in the batch`) });
      return;
    }
    seen.add(normalized.key);
    const parts = file.multipart ? { contentMd5: '', multipart: file.multipart } : { contentMd5: file.contentMd5 ?? '' };
    valid.push({ index, path: normalized.path, pathKey: normalized.key, sha256: file.sha256, size: file.size, ...parts });
  });
  return { valid, invalid };
}

/**
 * An upload URL lives long enough for a slow link to finish the file: 15 minutes plus one second per
 * MiB (a 5 GiB file gets about 100 minutes), capped by SigV4's 7-day maximum.
 */
export function uploadUrlTtlSeconds(size: number): number {
  return Math.min(15 * 60 + Math.ceil(size / (1024 * 1024)), 7 * 24 * 3600);
}
