import { lineFinder, type IndexHeader, type ParsedIndex } from './index-format.ts';

/**
 * The index's first format, one text line per path: the path, a tab, then its record
 * (index-format.ts). Read so that a workspace an older lode wrote keeps its hash cache and records;
 * it is written anew in the current format at the next save.
 *
 *   lode-index <TAB> 1 <TAB> {"id":…,"remote":…,"mixedCaseRemote":…}
 *   path <TAB> record
 *
 * A path with a control character, or starting with a quote, is written as a JSON string.
 */
export function parseTextIndex(text: string, header: IndexHeader, length: number): ParsedIndex | undefined {
  const headerEnd = text.indexOf('\n');
  let pathStarts = new Int32Array(1024);
  let starts = new Int32Array(1024);
  let parts = new Uint8Array(1024);
  let lines = 0;
  let inPathOrder = true;
  for (let at = headerEnd + 1; at < text.length; lines += 1) {
    const end = text.indexOf('\n', at);
    // A line without its newline was never fully written: the whole file is then not to be trusted.
    if (end < 0) return undefined;
    const tab = text.indexOf('\t', at);
    if (tab < 0 || tab > end) return undefined;
    if (lines === starts.length) {
      pathStarts = grown(pathStarts);
      starts = grown(starts);
      parts = grown(parts);
    }
    if (lines > 0 && inPathOrder) inPathOrder = fieldBefore(text, pathStarts[lines - 1], starts[lines - 1] - 1, at, tab);
    pathStarts[lines] = at;
    starts[lines] = tab + 1;
    parts[lines] = text.charCodeAt(tab + 1) - 48;
    at = end + 1;
  }
  const pathAt = (line: number) => decodePath(text.slice(pathStarts[line], starts[line] - 1));
  return {
    header,
    format: 1,
    length,
    lines,
    parts: parts.subarray(0, lines),
    inPathOrder,
    lineOf: lineFinder(lines, pathAt, inPathOrder),
    pathAt,
    recordOf: (line) => [text, starts[line]],
    readAll() {},
  };
}

function decodePath(field: string): string {
  return field.startsWith('"') ? (JSON.parse(field) as string) : field;
}

function grown<T extends Int32Array | Uint8Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

/**
 * Whether the path field at `a`..`aEnd` of `text` comes strictly before the one at `b`..`bEnd` in
 * code units, compared where they lie rather than sliced out. A quoted (JSON) field is compared decoded.
 */
function fieldBefore(text: string, a: number, aEnd: number, b: number, bEnd: number): boolean {
  if (text.charCodeAt(a) === QUOTE || text.charCodeAt(b) === QUOTE) return decodePath(text.slice(a, aEnd)) < decodePath(text.slice(b, bEnd));
  for (let i = 0; ; i += 1) {
    if (b + i === bEnd) return false;
    if (a + i === aEnd) return true;
    const diff = text.charCodeAt(a + i) - text.charCodeAt(b + i);
    if (diff !== 0) return diff < 0;
  }
}

const QUOTE = 34;
