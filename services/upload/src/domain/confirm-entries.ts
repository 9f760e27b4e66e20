import { errors, type AppError } from '@lode/errors';
import { isVersion, upload, uuid } from '@lode/contracts';
import type { z } from 'zod';

export type ConfirmBody = z.output<typeof upload.confirmBodySchema>;

export interface ValidConfirm {
  index: number;
  body: ConfirmBody;
}

export interface InvalidConfirm {
  index: number;
  /** What the entry named, echoed in its error form; null where it named nothing usable. */
  fileId: string | null;
  version: number | null;
  error: AppError;
}

/**
 * Checks each entry of a confirm batch on its own (entries are isolated, as in initiate-batch). A file
 * listed twice is refused after its first occurrence: one batch confirms at most one version per file,
 * so the set-based write never has two rows racing for one file's tip.
 */
export function validateConfirmEntries(raw: readonly unknown[]): { valid: ValidConfirm[]; invalid: InvalidConfirm[] } {
  const valid: ValidConfirm[] = [];
  const invalid: InvalidConfirm[] = [];
  const seen = new Set<string>();
  raw.forEach((entry, index) => {
    const parsed = upload.confirmBodySchema.safeParse(entry);
    if (!parsed.success) {
      const fields = (typeof entry === 'object' && entry !== null ? entry : {}) as { fileId?: unknown; version?: unknown };
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'entry';
      invalid.push({
        index,
        // Only an id the reply can carry: echoing any string sent a megabyte of it back.
        fileId: uuid.safeParse(fields.fileId).data ?? null,
        // Only a version the reply can carry: JSON's 1e999 parses to Infinity, 1.5 and -1 are numbers too.
        version: isVersion(fields.version) ? fields.version : null,
        error: errors.validation(`${field}: ${issue?.message ?? 'invalid'}`),
      });
      return;
    }
    const body = parsed.data;
    if (seen.has(body.fileId)) {
      const error = errors.validation(`File ${body.fileId} appears more than once in the batch`);
      invalid.push({ index, fileId: body.fileId, version: body.version, error });
      return;
    }
    seen.add(body.fileId);
    valid.push({ index, body });
  });
  return { valid, invalid };
}
