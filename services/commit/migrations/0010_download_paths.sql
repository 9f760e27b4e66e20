-- Batch download URLs (docs/api.md) find files by path as the rest of the API does: ignoring letter
-- case, by libs/contracts pathKey. A file's path never changes, so its key is kept once per file, not
-- per branch; commits-repo record() adds each file a commit brings to a branch tree for the first time
-- and no other branch has keyed yet. One index, the key: the only one a commit writes into.
-- (Numbered 0010 so that the branch migrations being written at the same time keep 0004 onwards.)
CREATE TABLE file_paths (
  project_id  uuid NOT NULL,
  -- JavaScript's case folding, computed by the service: Postgres's lower() folds differently (and,
  -- under the C locale, only ASCII letters), so SQL may not compute or compare keys.
  path_key    text NOT NULL,
  file_id     uuid NOT NULL,
  PRIMARY KEY (project_id, path_key)
);

-- Files committed before this migration: the service keys them when it starts, before it serves
-- (domain/path-keys.ts), and empties this table. Files that a commit service older than this
-- migration commits for the first time after it ran (a rolling upgrade) get no key: they are found
-- by fileId, and by path once committed by this version to a branch that lacks them.
CREATE TABLE file_paths_unkeyed (
  project_id  uuid NOT NULL,
  file_id     uuid NOT NULL,
  path        text NOT NULL,
  PRIMARY KEY (project_id, file_id)
);
INSERT INTO file_paths_unkeyed (project_id, file_id, path)
SELECT DISTINCT ON (project_id, file_id) project_id, file_id, path FROM tree ORDER BY project_id, file_id;

-- A version asked of a branch other than main, among the entries of branches other than main
-- (main's have commit_entries_main_history). Main's entries stay out of it, so main's commits write
-- no more than before.
CREATE INDEX commit_entries_branch_versions ON commit_entries (project_id, file_id, version)
  WHERE branch <> 'main' AND action <> 'delete';
