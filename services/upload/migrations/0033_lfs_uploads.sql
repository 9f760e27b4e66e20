-- Git LFS uploads: an object a batch's upload action was issued for, waiting for its verify, which
-- adds it to `blobs` (the project's content store) and deletes the row. One row per content per
-- project: a second batch for the same object while one waits gets the same object key, so racing
-- pushes of one object write one key and one verify stores it. Expired rows are collected with
-- their objects, as file upload reservations are.
CREATE TABLE lfs_uploads (
  id          uuid PRIMARY KEY,
  project_id  uuid NOT NULL,
  sha256      text NOT NULL,
  size        bigint NOT NULL,
  storage_key text NOT NULL,
  uploader_id uuid NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  CONSTRAINT lfs_uploads_content UNIQUE (project_id, sha256, size),
  CONSTRAINT lfs_uploads_storage_key UNIQUE (storage_key)
);
CREATE INDEX lfs_uploads_expiry ON lfs_uploads (expires_at);
