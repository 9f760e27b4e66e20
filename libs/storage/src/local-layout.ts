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
