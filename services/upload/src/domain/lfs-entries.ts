import { lfs, upload } from '@lode/contracts';

/** A batch entry that names an object: its oid (the SHA-256) and size. */
export interface LfsObjectRef {
  index: number;
  oid: string;
  size: number;
}

export type LfsEntryCheck = { valid: LfsObjectRef[]; invalid: { index: number; object: lfs.BatchObject }[] };

/**
 * Checks each entry of a batch on its own, as git-lfs expects per-object errors: an oid that is not
 * a SHA-256 in lowercase hex, or a size that is not a whole number of bytes, is refused as invalid;
 * so is an upload above the largest single PUT, which no upload action could carry.
 */
export function checkLfsEntries(operation: lfs.LfsOperation, raw: readonly unknown[]): LfsEntryCheck {
  const valid: LfsObjectRef[] = [];
  const invalid: LfsEntryCheck['invalid'] = [];
  raw.forEach((entry, index) => {
    const { oid, size } = (typeof entry === 'object' && entry !== null ? entry : {}) as { oid?: unknown; size?: unknown };
    // Only a size JSON can carry back: 1e999 parses to Infinity, which would answer null.
    const echo = { oid: typeof oid === 'string' ? oid : '', size: typeof size === 'number' && Number.isFinite(size) ? size : 0 };
    const refuse = (message: string) => invalid.push({ index, object: { ...echo, refused: { reason: 'invalid', message } } });
    if (typeof oid !== 'string' || !lfs.LFS_OID.test(oid)) return refuse('oid must be a SHA-256: 64 lowercase hex characters');
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return refuse('size must be a whole number of bytes, at least 0');
    if (operation === 'upload' && size > upload.MAX_FILE_SIZE) {
      return refuse(`size ${size} exceeds the largest single upload, ${upload.MAX_FILE_SIZE} bytes`);
    }
    valid.push({ index, oid, size });
  });
  return { valid, invalid };
}

/** The key a content is looked up by: one upload per content, however often a batch names it. */
export const contentKey = (sha256: string, size: number) => `${sha256}:${size}`;
