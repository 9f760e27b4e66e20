/**
 * One entry of commit.created as JSON, from the entry's row `row` and the action recorded, `action`:
 * what JSON.stringify writes for it, put together as text (less than half json_build_object's cost, paid
 * once to size each entry and once to write it). Only the path can need escaping: the id is a UUID,
 * the hash hex, the action a word, the rest numbers. Shared by a commit sent whole and a draft's.
 */
export const entryJson = (row: string, action: string) =>
  `('{"fileId":"' || ${row}.file_id || '","path":' || to_json(${row}.path)::text || ',"action":"' || ${action} ||
    '","version":' || coalesce(${row}.version::text, 'null') || ',"sha256":' || coalesce('"' || ${row}.sha256 || '"', 'null') ||
    ',"size":' || coalesce(${row}.size::text, 'null') || '}')`;
