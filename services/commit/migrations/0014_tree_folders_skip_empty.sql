-- Keeps tree_folders as 0013 does, but a statement that wrote no tree row (a commit of files all new
-- to the branch still runs its UPDATE of the files it holds, and fires its trigger) returns at once.

CREATE OR REPLACE FUNCTION tree_folders_apply() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT SET jit = off AS $fn$
DECLARE
  arriving CONSTANT text := 'SELECT project_id, branch, path, 1 AS files, size FROM new_rows WHERE NOT deleted';
  leaving  CONSTANT text := 'SELECT project_id, branch, path, -1 AS files, -size AS size FROM old_rows WHERE NOT deleted';
BEGIN
  -- A statement that moved no row still fires its statement trigger: most commits update no file of
  -- the tree or insert none. Such a call returns here, before the dynamic SQL below, which is parsed
  -- and planned at every call. An UPDATE or DELETE that moved no row has no old row.
  IF TG_OP = 'INSERT' THEN
    PERFORM FROM new_rows LIMIT 1;
  ELSE
    PERFORM FROM old_rows LIMIT 1;
  END IF;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  -- A trigger's transition tables are named in SQL text: an INSERT has no old_rows, a DELETE no new_rows.
  EXECUTE format($sql$
    WITH changes AS (%s),
    per_folder AS (
      SELECT project_id, branch, regexp_replace(path, '[^/]*$', '') COLLATE "C" AS folder, sum(files) AS files, sum(size) AS bytes
      FROM changes WHERE strpos(path, '/') > 0 GROUP BY 1, 2, 3
    ),
    delta AS (
      SELECT f.project_id, f.branch, c.parent, c.name, sum(f.files) AS files, sum(f.bytes) AS bytes
      FROM per_folder f, tree_folder_chain(f.folder) c
      GROUP BY 1, 2, 3, 4
      HAVING sum(f.files) <> 0 OR sum(f.bytes) <> 0
    ),
    emptied AS (
      DELETE FROM tree_folders t USING delta d
      WHERE t.project_id = d.project_id AND t.branch = d.branch AND t.parent = d.parent AND t.name = d.name AND t.file_count + d.files = 0
      RETURNING t.project_id, t.branch, t.parent, t.name
    ),
    updated AS (
      UPDATE tree_folders t SET file_count = t.file_count + d.files, total_size = t.total_size + d.bytes
      FROM delta d
      WHERE t.project_id = d.project_id AND t.branch = d.branch AND t.parent = d.parent AND t.name = d.name AND t.file_count + d.files <> 0
      RETURNING t.project_id, t.branch, t.parent, t.name
    )
    INSERT INTO tree_folders (project_id, branch, parent, name, file_count, total_size)
    SELECT d.project_id, d.branch, d.parent, d.name, d.files, d.bytes FROM delta d
    WHERE NOT EXISTS (SELECT FROM emptied e WHERE e.project_id = d.project_id AND e.branch = d.branch AND e.parent = d.parent AND e.name = d.name)
      AND NOT EXISTS (SELECT FROM updated u WHERE u.project_id = d.project_id AND u.branch = d.branch AND u.parent = d.parent AND u.name = d.name)
  $sql$, CASE TG_OP WHEN 'INSERT' THEN arriving WHEN 'DELETE' THEN leaving ELSE arriving || ' UNION ALL ' || leaving END);
  RETURN NULL;
END $fn$;
