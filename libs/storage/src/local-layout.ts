/**
 * What the local driver's files are, read by the driver and by its worker threads alike; this
 * module imports nothing, so a thread that loads it loads nothing else.
 */

/** Modes of what the local driver makes: readable by the user Lode runs as, nobody else. */
export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The sealed header: this prefix, 64 hex digits of SHA-256, a newline. */
export const HEADER_PREFIX = 'lode sha256 ';
export const SEALED_HEADER_BYTES = HEADER_PREFIX.length + 64 + 1;

/**
 * A sealed object's file starts with this line, then holds the object's bytes: its verified SHA-256
 * travels in the one file, so storing an object creates one inode instead of two (the object and a
 * `.sha256` sidecar, as earlier versions wrote them): creating a file is kernel time that on some
 * disks is the largest part of storing a small object. Reads start after it.
 */
export function sealedHeader(sha256: string): string {
  return `${HEADER_PREFIX}${sha256}\n`;
}

/**
 * A multipart upload is a folder `multipart/<uploadId>` (a random UUID) holding the file KEY_FILE,
 * whose text is the object key the upload is for, and each stored part as `<partNumber>.<md5 hex>`:
 * listing the parts is reading the folder, and a part's ETag is its name's MD5. The folder is made
 * whole in `incoming/` and renamed into place, so every upload folder has its key file.
 */
export const MULTIPART_KEY_FILE = 'key';
export const UPLOAD_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PART_FILE_PATTERN = /^([1-9][0-9]{0,4})\.([0-9a-f]{32})$/;

export function partFileName(partNumber: number, md5Hex: string): string {
  return `${partNumber}.${md5Hex}`;
}

/** A part file's number and hex MD5; null for any other name. */
export function parsePartFileName(name: string): { partNumber: number; md5Hex: string } | null {
  const match = PART_FILE_PATTERN.exec(name);
  return match ? { partNumber: Number(match[1]), md5Hex: match[2] } : null;
}

/**
 * Which of two files stored for the same part number is the part: the one renamed into the folder
 * last (a rename sets the file's ctime), so the last PUT wins, as on S3; by name on a tie. The PUT
 * handler removes the ones it displaced, and a listing that meets two before that picks the same one.
 */
export function isLaterPart(a: { name: string; ctimeNs: bigint }, b: { name: string; ctimeNs: bigint }): boolean {
  return a.ctimeNs > b.ctimeNs || (a.ctimeNs === b.ctimeNs && a.name > b.name);
}
