-- The lock service's schema: exclusive file locks and the commit fences that keep a lock from
-- slipping in while a commit is checked and written (docs/architecture.md). No other service reads it.

-- One active lock per file (spec 3). Path and holder are copied at lock time: the service learns a
-- file's path from the upload service and the holder from the caller's actor, and both are shown
-- in every listing without asking anyone again.
CREATE TABLE locks (
  project_id      uuid NOT NULL,
  file_id         uuid NOT NULL,
  path            text COLLATE "C" NOT NULL,  -- byte order: listings page the same on every server locale
  path_key        text NOT NULL,              -- case-folded path, for the case-insensitive prefix filter
  user_id         uuid NOT NULL,
  user_name       text NOT NULL,
  user_avatar_url text,
  note            text NOT NULL DEFAULT '',
  locked_at       timestamptz NOT NULL,
  PRIMARY KEY (project_id, file_id)
);
-- GET /locks: keyset by (path, file_id) within a project, optionally for one holder.
CREATE INDEX locks_by_path ON locks (project_id, path, file_id);
CREATE INDEX locks_by_holder ON locks (project_id, user_id, path, file_id);

-- A commit in progress on a file: while unexpired, other users' lock requests on the file conflict.
-- A fence never settled (a crashed commit) is ignored once expired and purged later.
CREATE TABLE fences (
  fence_id    uuid NOT NULL,
  project_id  uuid NOT NULL,
  file_id     uuid NOT NULL,
  user_id     uuid NOT NULL,
  user_name   text,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (fence_id, file_id)
);
CREATE INDEX fences_by_file ON fences (project_id, file_id);
CREATE INDEX fences_by_expiry ON fences (expires_at);
