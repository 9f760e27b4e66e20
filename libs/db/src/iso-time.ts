/**
 * A timestamptz column as the text JavaScript's toISOString writes (UTC, milliseconds, `Z`), written
 * by Postgres: a row read for a reply then carries the reply's own text, and no Date is parsed from
 * the wire and formatted again for each row. Both drop the microseconds alike (truncated).
 */
export const isoTime = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
