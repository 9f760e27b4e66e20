-- A lock's time is when it was taken, after its request waited for the project's mutex, not when the
-- request's statement began (now()): the commit.created fallback releases the author's locks taken
-- before the commit, and a request that began before a commit but waited its turn past it took
-- its lock after it. clock_timestamp() read once after the mutex is that moment, the same for every
-- lock of the request.
CREATE OR REPLACE FUNCTION acquire_locks(
  p_project_id uuid, p_user_id uuid, p_user_name text, p_user_avatar_url text, p_note text,
  p_file_ids uuid[], p_paths text[], p_path_keys text[]
) RETURNS TABLE (
  kind text, file_id uuid, path text, user_id uuid, user_name text, user_avatar_url text, note text, locked_at timestamptz
) LANGUAGE sql VOLATILE AS $$
  SELECT project_mutex(p_project_id);
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
  SELECT 'taken', t.file_id, t.path, t.user_id, t.user_name, t.user_avatar_url, t.note, t.locked_at FROM taken t
  UNION ALL
  SELECT 'held', h.file_id, h.path, h.user_id, h.user_name, h.user_avatar_url, h.note, h.locked_at
  FROM locks h
  WHERE h.project_id = p_project_id AND h.file_id = ANY (p_file_ids) AND h.user_id <> p_user_id
  UNION ALL
  (SELECT DISTINCT ON (f.file_id) 'fenced', f.file_id, NULL, c.user_id, c.user_name, NULL, NULL, NULL
   FROM fences c, unnest(c.file_ids) AS f(file_id)
   WHERE c.project_id = p_project_id AND c.user_id <> p_user_id AND c.expires_at > now() AND f.file_id = ANY (p_file_ids)
   ORDER BY f.file_id, c.expires_at DESC);
$$;
