-- The folder listing (docs/api.md, Folders): one level of a branch's tree, its subfolders with how
-- many live files each holds at any depth and their total size, then its own files. Both halves are
-- read from an index, whatever the size of the tree: the folders from tree_folders, kept per branch,
-- and the files from tree_live_by_folder.

-- A path's folder: everything up to its last '/', '' for a file at the root.
CREATE INDEX tree_live_by_folder ON tree (project_id, branch, (regexp_replace(path, '[^/]*$', '')) COLLATE "C", path COLLATE "C")
  WHERE NOT deleted;

-- Every folder of a branch that holds a live file at any depth; a folder whose last file goes is
-- removed, so a row means the folder exists. Names compare byte for byte, as every path-ordered list.
CREATE TABLE tree_folders (
  project_id  uuid NOT NULL,
  branch      text NOT NULL,
  parent      text COLLATE "C" NOT NULL,   -- the folder it is in, with its trailing '/'; '' at the root
  name        text COLLATE "C" NOT NULL,   -- its own segment, without '/'
  file_count  bigint NOT NULL CHECK (file_count > 0),
  total_size  bigint NOT NULL CHECK (total_size >= 0),
  PRIMARY KEY (project_id, branch, parent, name)
);

-- The folders a folder path ('a/b/c/') is in or is: ('', 'a'), ('a/', 'b'), ('a/b/', 'c').
CREATE FUNCTION tree_folder_chain(folder text) RETURNS TABLE (parent text, name text) LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN i = 1 THEN '' ELSE array_to_string(s[1:i - 1], '/') || '/' END, s[i]
  FROM string_to_array(folder, '/') AS s, generate_series(1, cardinality(s) - 1) AS i
$$;

-- Keeps tree_folders in the statement that moves `tree`, whichever writes it (a commit, a draft's
-- batch, a merge, a restore, a branch's copied or deleted tree): the aggregates can never disagree
-- with the tree a transaction commits. Set-based, once per statement: live files leaving (old rows)
-- count -1 and their size negative, live files arriving (new rows) +1, summed per folder first, then
-- per folder of the chain. A folder brought to no file is deleted, one still holding files updated,
-- a new one inserted. A project's tree writers hold its project_sequences row lock, so no two
-- statements insert the same folder at once (no ON CONFLICT needed). The CHECKs fail the statement,
-- and its commit, if the counts ever went wrong. JIT off: its compilation costs more than the work.
CREATE FUNCTION tree_folders_apply() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT SET jit = off AS $fn$
DECLARE
  arriving CONSTANT text := 'SELECT project_id, branch, path, 1 AS files, size FROM new_rows WHERE NOT deleted';
  leaving  CONSTANT text := 'SELECT project_id, branch, path, -1 AS files, -size AS size FROM old_rows WHERE NOT deleted';
BEGIN
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

CREATE TRIGGER tree_folders_on_insert AFTER INSERT ON tree REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tree_folders_apply();
CREATE TRIGGER tree_folders_on_update AFTER UPDATE ON tree REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tree_folders_apply();
CREATE TRIGGER tree_folders_on_delete AFTER DELETE ON tree REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tree_folders_apply();

-- The trees committed before this migration.
INSERT INTO tree_folders (project_id, branch, parent, name, file_count, total_size)
SELECT f.project_id, f.branch, c.parent, c.name, sum(f.files), sum(f.bytes)
FROM (
  SELECT project_id, branch, regexp_replace(path, '[^/]*$', '') COLLATE "C" AS folder, count(*) AS files, sum(size) AS bytes
  FROM tree WHERE NOT deleted AND strpos(path, '/') > 0 GROUP BY 1, 2, 3
) f, tree_folder_chain(f.folder) c
GROUP BY 1, 2, 3, 4;
