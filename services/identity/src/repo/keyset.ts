/**
 * `WHERE` fragment for "rows after this (created_at, id)" in ascending order; `after` is the last
 * row's position as its cursor carried it.
 */
export function afterClause(after: string[] | undefined, firstParam: number): { sql: string; params: unknown[] } {
  if (!after) return { sql: 'TRUE', params: [] };
  return { sql: `(created_at, id) > ($${firstParam}::timestamptz, $${firstParam + 1}::uuid)`, params: [after[0], after[1]] };
}

export function createdAtPosition(row: { created_at: Date; id: string }): string[] {
  return [row.created_at.toISOString(), row.id];
}
