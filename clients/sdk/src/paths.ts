/** The longest path and segment the API stores (docs/api.md, Paths). */
const MAX_PATH_LENGTH = 1024;
const MAX_SEGMENT_BYTES = 255;
// A UTF-16 surrogate without its pair: no UTF-8 form, so the server would store U+FFFD instead.
// (String.prototype.isWellFormed is ES2024; the SDK is built for ES2022.)
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether text holds a UTF-16 surrogate without its pair, which no request body may carry. */
export function hasUnpairedSurrogate(text: string): boolean {
  return UNPAIRED_SURROGATE.test(text);
}

// Unicode's control characters: C0, DEL and C1.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

// The names nearly every workspace holds, taken at once without normalizing or splitting: ASCII
// letters, digits, '_', '.', '-' and spaces, in segments of 1 to 255 that are neither '.' nor '..'
// (already NFC, one byte per character).
const PLAIN_PATH = /^(?:(?!\.\.?\/)[\w .-]{1,255}\/)*(?!\.\.?$)[\w .-]{1,255}$/;

/**
 * Why the API would refuse a project path, or undefined if it takes it. The server's rule
 * (docs/api.md, Paths) written again on the client's side of the wire, where no server package may
 * go: one such name in a sync or an initiate-batch fails the whole request, so a client sets those
 * files aside first. test/path-rule.test.ts runs both rules over the same paths.
 */
export function pathProblem(raw: string): string | undefined {
  if (raw.length <= MAX_PATH_LENGTH && PLAIN_PATH.test(raw)) return undefined;
  if (raw.length === 0) return 'it is empty';
  const path = raw.normalize('NFC');
  if (path.length > MAX_PATH_LENGTH) return `longer than ${MAX_PATH_LENGTH} characters`;
  if (path.startsWith('/')) return 'it must be relative to the project';
  if (path.includes('\\')) return 'it contains a backslash';
  if (CONTROL_CHARACTER.test(path)) return 'it contains control characters';
  if (hasUnpairedSurrogate(path)) return 'it contains an unpaired surrogate';
  for (const segment of path.split('/')) {
    if (segment === '') return 'it has an empty segment';
    if (segment === '.' || segment === '..') return '"." and ".." segments are not allowed';
    // A UTF-16 code unit is at most 3 bytes of UTF-8: only a longer name needs its bytes counted.
    if (segment.length * 3 > MAX_SEGMENT_BYTES && Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return `a name is longer than ${MAX_SEGMENT_BYTES} bytes`;
  }
  return undefined;
}
