-- Batch download URLs (docs/api.md) find files by path as the rest of the API does: ignoring letter
-- case, by libs/contracts pathKey. A file's path never changes, so its key is kept once per file, not
-- per branch; commits-repo record() adds each file a commit brings to a branch tree for the first time.
-- (Numbered 0010 so that the branch migrations being written at the same time keep 0004 onwards.)
CREATE TABLE file_paths (
  project_id  uuid NOT NULL,
  file_id     uuid NOT NULL,
  path        text NOT NULL,
  -- JavaScript's case folding, computed by the service: Postgres's lower() folds differently (and,
  -- under the C locale, only ASCII letters), so it may not compute or compare keys.
  path_key    text,
  PRIMARY KEY (project_id, file_id)
);
CREATE UNIQUE INDEX file_paths_key ON file_paths (project_id, path_key);

-- Files committed before this migration come without a key; the service keys them when it starts
-- (domain/path-keys.ts), finding them by this index, which is empty from then on.
CREATE INDEX file_paths_unkeyed ON file_paths (project_id) WHERE path_key IS NULL;
INSERT INTO file_paths (project_id, file_id, path)
SELECT DISTINCT ON (project_id, file_id) project_id, file_id, path FROM tree ORDER BY project_id, file_id;

-- A version asked of a branch other than main, among the branch's own entries (main's have
-- commit_entries_main_history). Main's entries stay out of it, so main's commits write no more.
CREATE INDEX commit_entries_branch_versions ON commit_entries (project_id, file_id, version)
  WHERE branch <> 'main' AND action <> 'delete';
