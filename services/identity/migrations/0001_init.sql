-- The gateway's schema: who may call, for which project. Keys are stored only as SHA-256 hashes.
-- Timestamps are kept at millisecond precision: the API shows milliseconds and keyset cursors carry them.

CREATE TABLE orgs (
  id         uuid PRIMARY KEY,
  name       text NOT NULL,
  slug       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  CONSTRAINT orgs_slug_key UNIQUE (slug)
);

CREATE TABLE users (
  id         uuid PRIMARY KEY,
  name       text NOT NULL,
  avatar_url text,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

CREATE TABLE memberships (
  org_id     uuid NOT NULL REFERENCES orgs (id),
  user_id    uuid NOT NULL REFERENCES users (id),
  role       text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  PRIMARY KEY (org_id, user_id)
);

CREATE TABLE projects (
  id                    uuid PRIMARY KEY,
  org_id                uuid NOT NULL REFERENCES orgs (id),
  name                  text NOT NULL,
  slug                  text NOT NULL,
  icon_url              text,
  -- Per-project override of the write rate limit; NULL means the configured default.
  write_rate_per_second double precision CHECK (write_rate_per_second > 0),
  write_rate_burst      integer CHECK (write_rate_burst >= 1),
  created_at            timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  CONSTRAINT projects_org_slug_key UNIQUE (org_id, slug)
);

CREATE TABLE api_keys (
  id              uuid PRIMARY KEY,
  project_id      uuid NOT NULL REFERENCES projects (id),
  user_id         uuid NOT NULL REFERENCES users (id),
  key_hash        bytea NOT NULL,
  key_hint        text NOT NULL,           -- the last four characters, to tell keys apart in lists
  device_id       text,                    -- set once, by the first request that names a device
  device_bound_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  revoked_at      timestamptz,
  CONSTRAINT api_keys_hash_key UNIQUE (key_hash)
);
CREATE INDEX api_keys_project ON api_keys (project_id, created_at, id);
CREATE INDEX projects_org ON projects (org_id, created_at, id);
