/** Separates free text (paths, storage keys), which never contains control characters. */
export const UNIT_SEPARATOR = '\u001f';
/** Separates path keys, which never contain a line break; the sync service stores lists of them so. */
export const LINE_SEPARATOR = '\n';

/**
 * A batch's column as one text parameter, for `string_to_array($n, <separator>, '')::<type>[]` in SQL
 * (docs/architecture.md, Database). For 25,000 values Postgres reads it several times faster than
 * the array literal node-pg would send (every element quoted and escaped, then parsed back by
 * array_in). A null travels as the empty string, which no column sent this way holds otherwise. A
 * value containing the separator would split in two, so it is refused rather than sent.
 */
export function textList(values: readonly (string | number | boolean | null)[], separator = ','): string {
  // Ids, numbers, hashes and timestamps cannot hold a comma; free text is checked.
  if (separator !== ',' && values.some((value) => typeof value === 'string' && value.includes(separator))) {
    throw new Error('a list value contains its separator');
  }
  return values.join(separator);
}
