-- Shared plugins (issue 18): packages published once per organization and offered to every project
-- of it, versioned and immutable. Scoped by org_id, never by project: every query names the org.
-- version_order is the semver precedence key (domain/plugin-version-order.ts); "C" collation makes
-- byte order the sort order, so "newest" and the keyset cursors are plain index comparisons.

-- A publish in progress: initiate issued a signed PUT for these bytes; confirm records the version.
CREATE TABLE plugin_uploads (
  id          uuid PRIMARY KEY,
  org_id      uuid NOT NULL,
  name        text NOT NULL,
  version     text NOT NULL,
  storage_key text NOT NULL,
  sha256      text NOT NULL,
  size        bigint NOT NULL,
  description text,
  uploader_id uuid NOT NULL,
  state       text NOT NULL DEFAULT 'reserved' CHECK (state IN ('reserved', 'confirmed')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  CONSTRAINT plugin_uploads_storage_key UNIQUE (storage_key)
);
CREATE INDEX plugin_uploads_expiry ON plugin_uploads (expires_at) WHERE state = 'reserved';

-- A published version: immutable, one per precedence (the primary key makes a racing second confirm fail).
CREATE TABLE plugin_versions (
  org_id            uuid NOT NULL,
  name              text COLLATE "C" NOT NULL,
  version_order     text COLLATE "C" NOT NULL,
  version           text NOT NULL,
  sha256            text NOT NULL,
  size              bigint NOT NULL,
  storage_key       text NOT NULL,
  description       text,
  published_by_id   uuid NOT NULL,
  published_by_name text NOT NULL,
  upload_id         uuid NOT NULL REFERENCES plugin_uploads (id),
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, name, version_order)
);

-- One row per plugin, kept by the transaction that records a version: the newest version (by
-- precedence) and its description, and when any version was last published.
CREATE TABLE plugins (
  org_id               uuid NOT NULL,
  name                 text COLLATE "C" NOT NULL,
  latest_version       text NOT NULL,
  latest_version_order text COLLATE "C" NOT NULL,
  description          text,
  updated_at           timestamptz NOT NULL,
  PRIMARY KEY (org_id, name)
);
