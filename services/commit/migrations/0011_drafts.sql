-- Issue 18: draft commits (docs/api.md, Draft commits). A push above 25,000 files is staged over many
-- calls and finalized as one commit, set-based from these rows, so no process holds its entries.
-- (Numbered 0011: after 0010_download_paths, the last applied so far.)

CREATE TABLE drafts (
  id          uuid PRIMARY KEY,
  project_id  uuid NOT NULL,
  user_id     uuid NOT NULL,              -- its owner: another user's draft reads as not found
  message     text NOT NULL,
  branch      text NOT NULL,
  -- Bumped by every staging call: a finalize fences the files it read and refuses to commit entries
  -- staged after it began, which no fence covered.
  revision    integer NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX drafts_expiry ON drafts (expires_at);

-- One row per staged file (a file staged again replaces its row), with what the upload service
-- resolved when it was staged: the path, its key, and the version's metadata (versions are immutable).
CREATE TABLE draft_entries (
  draft_id           uuid NOT NULL REFERENCES drafts (id) ON DELETE CASCADE,
  file_id            uuid NOT NULL,
  action             text NOT NULL CHECK (action IN ('add', 'modify', 'delete')),
  version            integer,              -- null for a delete
  path               text NOT NULL,
  path_key           text NOT NULL,        -- libs/contracts pathKey, computed by the service
  version_id         uuid,
  sha256             text,
  size               bigint,
  storage_key        text,
  uploader_id        uuid,
  uploader_name      text,
  version_created_at timestamptz,
  PRIMARY KEY (draft_id, file_id)
);

ALTER TABLE commits DROP CONSTRAINT commits_kind_check;
ALTER TABLE commits ADD CONSTRAINT commits_kind_check CHECK (kind IN ('commit', 'restore', 'merge', 'draft'));
