import { errors } from '@lode/errors';
import { isValidStorageKey, MULTIPART_MAX_PART_NUMBER, MULTIPART_MIN_PART_SIZE, type PresignPartInput, type StoredPart } from './storage.ts';

/**
 * What both drivers check of a multipart call before touching the store, so that they answer alike.
 * Bad input is the calling service's bug (a plain Error); parts the store could not join are
 * `upload_incomplete`, as the store's own refusal would be.
 */

const BASE64_MD5 = /^[A-Za-z0-9+/]{22}==$/;
const QUOTED_MD5_HEX = /^"[0-9a-f]{32}"$/;

export function isPartNumber(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= MULTIPART_MAX_PART_NUMBER;
}

export function checkPartToSign(input: PresignPartInput): void {
  if (!isValidStorageKey(input.key)) throw new Error(`Invalid storage key ${input.key}`);
  if (!isPartNumber(input.partNumber)) throw new Error(`Part number ${input.partNumber} is not between 1 and ${MULTIPART_MAX_PART_NUMBER}`);
  if (!Number.isSafeInteger(input.size) || input.size < 0) throw new Error(`Part size ${input.size} is not a byte count`);
  if (!BASE64_MD5.test(input.contentMd5)) throw new Error('Content-MD5 is not the base64 encoding of a 16-byte MD5 digest');
}

/** The hex MD5 a part's base64 Content-MD5 stands for. */
export function md5Hex(contentMd5: string): string {
  return Buffer.from(contentMd5, 'base64').toString('hex');
}

/** An ETag as S3 lists a part's: its hex MD5 in double quotes (stores differ in whether they quote it). */
export function quotedEtag(etag: string): string {
  return etag.startsWith('"') ? etag : `"${etag}"`;
}

/**
 * The parts of a complete: numbers ascending without repeats, ETags of hex MD5s, and every part but
 * the last at least MULTIPART_MIN_PART_SIZE, as S3 requires (the local driver keeps it too, so an
 * upload that completes here completes on S3).
 */
export function checkPartsToJoin(parts: readonly StoredPart[]): void {
  if (parts.length === 0) throw new Error('A multipart upload is completed from at least one part');
  parts.forEach((part, i) => {
    if (!isPartNumber(part.partNumber)) throw new Error(`Part number ${part.partNumber} is not between 1 and ${MULTIPART_MAX_PART_NUMBER}`);
    if (i > 0 && part.partNumber <= parts[i - 1].partNumber) throw new Error('Parts are completed in ascending order of part number, each once');
    if (!QUOTED_MD5_HEX.test(quotedEtag(part.etag))) throw new Error(`Part ${part.partNumber}'s ETag ${part.etag} is not a quoted hex MD5`);
    if (i < parts.length - 1 && part.size < MULTIPART_MIN_PART_SIZE) throw partTooSmall(part.partNumber);
  });
}

export function partTooSmall(partNumber?: number): Error {
  const which = partNumber === undefined ? 'A part' : `Part ${partNumber}`;
  return errors.uploadIncomplete(`${which} is smaller than ${MULTIPART_MIN_PART_SIZE} bytes and not the last: the store joins no such part`);
}

export function noSuchUpload(): Error {
  return errors.uploadIncomplete('The store has no such multipart upload: it was aborted, or never created for this key');
}

export function partNotHeld(partNumber?: number): Error {
  const which = partNumber === undefined ? 'a part' : `part ${partNumber}`;
  return errors.uploadIncomplete(`The store does not hold ${which} as listed: it was never stored, or stored again with other bytes`);
}
