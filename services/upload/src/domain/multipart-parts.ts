import type { upload } from '@lode/contracts';

/** A part as the store should hold it: its number, size and ETag (its MD5 in hex, quoted, as S3 answers). */
export interface PromisedPart {
  partNumber: number;
  size: number;
  etag: string;
}

/**
 * Why a multipart request cannot describe a file of `size` bytes, or undefined when it does: every
 * part but the last is exactly partSize, the last at most that, and the sizes add up to the file's.
 */
export function multipartRefusal(size: number, multipart: upload.MultipartRequest): string | undefined {
  const { partSize, parts } = multipart;
  const wrong = parts.findIndex((part, i) => (i < parts.length - 1 ? part.size !== partSize : part.size > partSize));
  if (wrong >= 0) return `multipart.parts.${wrong}.size: every part but the last must be partSize (${partSize}) bytes, the last at most that`;
  const total = parts.reduce((sum, part) => sum + part.size, 0);
  if (total !== size) return `multipart.parts: the parts add up to ${total} bytes, the file has ${size}`;
  return undefined;
}

/** The ETag S3 gives a part whose MD5 is `contentMd5` (base64). */
export function etagOf(contentMd5: string): string {
  return `"${Buffer.from(contentMd5, 'base64').toString('hex')}"`;
}

/** The parts a reservation promised, from its part size, MD5s and the file's size. */
export function promisedParts(size: number, partSize: number, partMd5s: readonly string[]): PromisedPart[] {
  return partMd5s.map((md5, i) => ({
    partNumber: i + 1,
    size: i < partMd5s.length - 1 ? partSize : size - partSize * (partMd5s.length - 1),
    etag: etagOf(md5),
  }));
}

const sameEtag = (a: string, b: string) => a.replace(/"/g, '').toLowerCase() === b.replace(/"/g, '').toLowerCase();

/**
 * The promised parts the store holds as promised (its size and ETag), and the numbers of the
 * others (`lacking`): not held at all (also in `missing`), or held with other bytes (a store that
 * checks each part's signed MD5 never holds those, but one that does not might).
 */
export function matchParts(
  promised: readonly PromisedPart[],
  stored: readonly upload.StoredPart[],
): { held: upload.StoredPart[]; lacking: number[]; missing: number[] } {
  const byNumber = new Map(stored.map((part) => [part.partNumber, part]));
  const held: upload.StoredPart[] = [];
  const lacking: number[] = [];
  const missing: number[] = [];
  for (const part of promised) {
    const found = byNumber.get(part.partNumber);
    if (found && found.size === part.size && sameEtag(found.etag, part.etag)) held.push(found);
    else {
      lacking.push(part.partNumber);
      if (!found) missing.push(part.partNumber);
    }
  }
  return { held, lacking, missing };
}

/** "parts 3, 7 and 9" for a message, the first few of many. */
export function partList(numbers: readonly number[]): string {
  const shown = numbers.slice(0, 10).join(', ');
  const more = numbers.length > 10 ? ` and ${numbers.length - 10} more` : '';
  return `part${numbers.length === 1 ? '' : 's'} ${shown}${more}`;
}
