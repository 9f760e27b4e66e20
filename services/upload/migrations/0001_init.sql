-- The upload service's schema: file identity, upload reservations, confirmed versions, and the
-- per-project content index that dedup reads. No other service reads these tables.

CREATE TABLE files (
  id          uuid PRIMARY KEY,
  project_id  uuid NOT NULL,
  path        text NOT NULL,               -- NFC, as the client sees it
  path_key    text NOT NULL,               -- case-folded: paths differing only in case collide
  tip_version integer NOT NULL DEFAULT 0,  -- latest confirmed version (0: none yet)
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT files_project_path_key UNIQUE (project_id, path_key)
);

-- A reservation issued by initiate. A version number is only a claim until confirm advances the tip.
CREATE TABLE uploads (
  id          uuid PRIMARY KEY,
  project_id  uuid NOT NULL,
  file_id     uuid NOT NULL REFERENCES files (id),
  version     integer NOT NULL,
  storage_key text NOT NULL,               -- for a dedup reservation, the existing blob's key
  sha256      text NOT NULL,
  size        bigint NOT NULL,
  content_md5 text NOT NULL,
  dedup       boolean NOT NULL,
  uploader_id uuid NOT NULL,
  state       text NOT NULL DEFAULT 'reserved' CHECK (state IN ('reserved', 'confirmed')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE UNIQUE INDEX uploads_storage_key ON uploads (storage_key) WHERE NOT dedup;
CREATE INDEX uploads_dedup_lookup ON uploads (file_id, version) WHERE dedup;
CREATE INDEX uploads_expiry ON uploads (expires_at) WHERE state = 'reserved';

CREATE TABLE versions (
  id            uuid PRIMARY KEY,
  project_id    uuid NOT NULL,
  file_id       uuid NOT NULL REFERENCES files (id),
  version       integer NOT NULL,
  sha256        text NOT NULL,
  size          bigint NOT NULL,
  storage_key   text NOT NULL,
  uploader_id   uuid NOT NULL,
  uploader_name text NOT NULL,
  upload_id     uuid REFERENCES uploads (id),
  origin        text NOT NULL CHECK (origin IN ('upload', 'dedup', 'restore')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT versions_file_version UNIQUE (file_id, version)
);

-- Content that is verifiably present in storage, per project. Dedup never crosses projects.
CREATE TABLE blobs (
  project_id  uuid NOT NULL,
  sha256      text NOT NULL,
  size        bigint NOT NULL,
  storage_key text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, sha256, size)
);
