-- acquire_locks and fence_unless_locked as PL/pgSQL, with the same arguments, rows and rules. Before
-- Postgres 18 a SQL function that is not inlined (these two, with their several statements) is
-- parsed and analysed again at every call, which cost more than a one-file lock's own writes;
-- PL/pgSQL does that once per connection and keeps each statement prepared, Postgres choosing a
-- custom or a generic plan per call as it does for any prepared statement. Either plan probes the
-- lock list through locks' key and reads the project's unexpired fences once.
--
-- Each statement of a VOLATILE PL/pgSQL function takes a fresh snapshot under READ COMMITTED, as each
-- statement of the SQL function did, so the statement after project_mutex still sees what the
-- mutex's previous holder committed. Column names win over the output parameters' (use_column): the
-- statements are the SQL functions' own, but for two casts RETURN QUERY needs to match its columns.

CREATE OR REPLACE FUNCTION acquire_locks(
  p_project_id uuid, p_user_id uuid, p_user_name text, p_user_avatar_url text, p_note text,
  p_file_ids uuid[], p_paths text[], p_path_keys text[]
) RETURNS TABLE (
  kind text, file_id uuid, path text, user_id uuid, user_name text, user_avatar_url text, note text, locked_at timestamptz
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
BEGIN
  PERFORM project_mutex(p_project_id);
  RETURN QUERY
  WITH stamp AS MATERIALIZED (SELECT clock_timestamp() AS at),
  taken AS (
    INSERT INTO locks AS l (project_id, file_id, path, path_key, user_id, user_name, user_avatar_url, note, locked_at)
    SELECT p_project_id, f.file_id, f.path, f.path_key, p_user_id, p_user_name, p_user_avatar_url, p_note, stamp.at
    FROM stamp, unnest(p_file_ids, p_paths, p_path_keys) AS f(file_id, path, path_key)
    WHERE NOT EXISTS (
      SELECT 1 FROM fences c
      WHERE c.project_id = p_project_id AND c.user_id <> p_user_id AND c.expires_at > now() AND f.file_id = ANY (c.file_ids)
    )
    ON CONFLICT (project_id, file_id) DO UPDATE
      SET note = EXCLUDED.note, locked_at = EXCLUDED.locked_at, user_name = EXCLUDED.user_name, user_avatar_url = EXCLUDED.user_avatar_url
      WHERE l.user_id = EXCLUDED.user_id
    RETURNING l.file_id, l.path, l.user_id, l.user_name, l.user_avatar_url, l.note, l.locked_at
  )
  SELECT 'taken'::text, t.file_id, t.path::text, t.user_id, t.user_name, t.user_avatar_url, t.note, t.locked_at FROM taken t
  UNION ALL
  SELECT 'held', h.file_id, h.path, h.user_id, h.user_name, h.user_avatar_url, h.note, h.locked_at
  FROM locks h
  WHERE h.project_id = p_project_id AND h.file_id = ANY (p_file_ids) AND h.user_id <> p_user_id
  UNION ALL
  (SELECT DISTINCT ON (f.file_id) 'fenced', f.file_id, NULL, c.user_id, c.user_name, NULL, NULL, NULL
   FROM fences c, unnest(c.file_ids) AS f(file_id)
   WHERE c.project_id = p_project_id AND c.user_id <> p_user_id AND c.expires_at > now() AND f.file_id = ANY (p_file_ids)
   ORDER BY f.file_id, c.expires_at DESC);
END
$$;

CREATE OR REPLACE FUNCTION fence_unless_locked(
  p_fence_id uuid, p_project_id uuid, p_user_id uuid, p_user_name text, p_ttl_secs double precision, p_file_ids text
) RETURNS SETOF locks LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM project_mutex(p_project_id);
  RETURN QUERY
  WITH held AS (
    SELECT l.* FROM locks l
    WHERE l.project_id = p_project_id AND l.file_id = ANY (string_to_array(p_file_ids, ',')::uuid[]) AND l.user_id <> p_user_id
  ),
  fenced AS (
    INSERT INTO fences (fence_id, project_id, user_id, user_name, file_ids, expires_at)
    SELECT p_fence_id, p_project_id, p_user_id, p_user_name, string_to_array(p_file_ids, ',')::uuid[], now() + make_interval(secs => p_ttl_secs)
    WHERE NOT EXISTS (SELECT 1 FROM held)
  )
  SELECT * FROM held ORDER BY path, file_id;
END
$$;
