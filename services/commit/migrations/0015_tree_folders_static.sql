-- Keeps tree_folders as 0014 does, with the same sums, but in static SQL planned once per connection
-- and trigger instead of dynamic SQL parsed and planned at every call: that planning cost more than a
-- small commit's whole write.
--
-- Each operation sums its live files per folder from the transition tables it has (an INSERT has no
-- old_rows, a DELETE no new_rows); the one statement that applies those sums to every folder of the
-- chain takes them as arrays. Its plan is generic (it is not planned for the size of a commit) and
-- uses only index probes of tree_folders, one per folder the statement touches, which suits one
-- folder as well as thousands: the planner's estimate of a chain's folders is far from any real one,
-- and a hash join over a scan of the whole table, which it would choose for its estimate, costs as
-- much as the project's tree. A folder that did not exist before the statement is inserted (the
-- others are updated, or deleted once empty); a project's tree writers hold its project_sequences
-- row lock, so no two statements insert the same folder at once.
CREATE OR REPLACE FUNCTION tree_folders_apply() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT SET jit = off
  SET plan_cache_mode = force_generic_plan SET enable_hashjoin = off SET enable_mergejoin = off SET enable_seqscan = off
AS $fn$
DECLARE
  -- Per folder ('a/b/' for a path 'a/b/c'): its project, branch, and the change of its own live files and bytes.
  f_projects uuid[];
  f_branches text[];
  f_folders text[];
  f_files bigint[];
  f_bytes numeric[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(project_id), array_agg(branch), array_agg(folder), array_agg(files), array_agg(bytes)
    INTO f_projects, f_branches, f_folders, f_files, f_bytes
    FROM (
      SELECT project_id, branch, regexp_replace(path, '[^/]*$', '') AS folder, count(*) AS files, sum(size) AS bytes
      FROM new_rows WHERE NOT deleted AND strpos(path, '/') > 0 GROUP BY 1, 2, 3
    ) f;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(project_id), array_agg(branch), array_agg(folder), array_agg(files), array_agg(bytes)
    INTO f_projects, f_branches, f_folders, f_files, f_bytes
    FROM (
      SELECT project_id, branch, regexp_replace(path, '[^/]*$', '') AS folder, -count(*) AS files, -sum(size) AS bytes
      FROM old_rows WHERE NOT deleted AND strpos(path, '/') > 0 GROUP BY 1, 2, 3
    ) f;
  ELSE
    SELECT array_agg(project_id), array_agg(branch), array_agg(folder), array_agg(files), array_agg(bytes)
    INTO f_projects, f_branches, f_folders, f_files, f_bytes
    FROM (
      SELECT project_id, branch, regexp_replace(path, '[^/]*$', '') AS folder, sum(change) AS files, sum(size) AS bytes
      FROM (
        SELECT project_id, branch, path, 1 AS change, size FROM new_rows WHERE NOT deleted
        UNION ALL
        SELECT project_id, branch, path, -1, -size FROM old_rows WHERE NOT deleted
      ) c
      WHERE strpos(path, '/') > 0 GROUP BY 1, 2, 3
    ) f;
  END IF;
  -- No live file in a folder arrived or left (most commits update no file of the tree, or insert none).
  IF f_projects IS NULL THEN
    RETURN NULL;
  END IF;
  WITH delta AS (
    SELECT f.project_id, f.branch, c.parent, c.name, sum(f.files) AS files, sum(f.bytes) AS bytes
    FROM unnest(f_projects, f_branches, f_folders, f_files, f_bytes) AS f(project_id, branch, folder, files, bytes),
         tree_folder_chain(f.folder) c
    GROUP BY 1, 2, 3, 4
    HAVING sum(f.files) <> 0 OR sum(f.bytes) <> 0
  ),
  emptied AS (
    DELETE FROM tree_folders t USING delta d
    WHERE t.project_id = d.project_id AND t.branch = d.branch AND t.parent = d.parent AND t.name = d.name AND t.file_count + d.files = 0
  ),
  updated AS (
    UPDATE tree_folders t SET file_count = t.file_count + d.files, total_size = t.total_size + d.bytes
    FROM delta d
    WHERE t.project_id = d.project_id AND t.branch = d.branch AND t.parent = d.parent AND t.name = d.name AND t.file_count + d.files <> 0
  )
  -- The statement's snapshot: the folders as they were before it, each of which it updates or deletes.
  INSERT INTO tree_folders (project_id, branch, parent, name, file_count, total_size)
  SELECT d.project_id, d.branch, d.parent, d.name, d.files, d.bytes FROM delta d
  WHERE NOT EXISTS (SELECT FROM tree_folders t WHERE t.project_id = d.project_id AND t.branch = d.branch AND t.parent = d.parent AND t.name = d.name);
  RETURN NULL;
END $fn$;
