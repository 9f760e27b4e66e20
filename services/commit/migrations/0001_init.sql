-- The commit service's schema: numbered commits, their entries, branch heads, the committed tree per
-- branch, idempotency records and the transactional outbox. No other service reads these tables.

-- One row per project; its row lock serializes a project's commits, so numbers have no gaps.
CREATE TABLE project_sequences (
  project_id uuid PRIMARY KEY,
  last_seq   integer NOT NULL
);

CREATE TABLE branches (
  project_id  uuid NOT NULL,
  name        text NOT NULL,
  head_seq    integer,                      -- sequence number of the branch's last commit
  base_seq    integer,                      -- main's head when the branch was started from it
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, name)
);

CREATE TABLE commits (
  id            uuid PRIMARY KEY,
  project_id    uuid NOT NULL,
  sequence_num  integer NOT NULL,
  branch        text NOT NULL,
  message       text NOT NULL,
  author_id     uuid NOT NULL,
  author_name   text NOT NULL,
  file_count    integer NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT commits_project_seq UNIQUE (project_id, sequence_num)
);

-- What each commit changed, with the version's metadata copied from the upload service at commit
-- time (versions are immutable), so history is answered without asking it again.
CREATE TABLE commit_entries (
  commit_id          uuid NOT NULL REFERENCES commits (id),
  project_id         uuid NOT NULL,
  branch             text NOT NULL,
  file_id            uuid NOT NULL,
  path               text NOT NULL,
  action             text NOT NULL CHECK (action IN ('add', 'modify', 'delete')),
  version            integer,              -- null for a delete
  version_id         uuid,
  sha256             text,
  size               bigint,
  storage_key        text,
  uploader_id        uuid,
  uploader_name      text,
  version_created_at timestamptz,
  PRIMARY KEY (commit_id, file_id)
);
-- Spec 4.7's keyset: a file's versions on main, newest first.
CREATE UNIQUE INDEX commit_entries_main_history ON commit_entries (project_id, file_id, version DESC)
  WHERE branch = 'main' AND action <> 'delete';

-- The committed tree: per branch, every file that was ever committed on it. A deleted file keeps
-- its row (deleted = true) so sync can tell "deleted remotely" from "never existed".
CREATE TABLE tree (
  project_id  uuid NOT NULL,
  branch      text NOT NULL,
  file_id     uuid NOT NULL,
  path        text NOT NULL,
  version     integer NOT NULL,            -- last version committed, kept when deleted
  sha256      text NOT NULL,
  size        bigint NOT NULL,
  commit_seq  integer NOT NULL,            -- commit that last changed the file (incl. its deletion)
  deleted     boolean NOT NULL DEFAULT false,
  PRIMARY KEY (project_id, branch, file_id)
);

-- A request's outcome under an idempotency key, scoped to project and API key (docs/api.md).
CREATE TABLE idempotency_keys (
  project_id    uuid NOT NULL,
  key_id        uuid NOT NULL,
  idem_key      text NOT NULL,
  request_hash  text NOT NULL,
  response      jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, key_id, idem_key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);

-- Transactional outbox (libs/outbox): events written with the commit, published by the relay.
CREATE TABLE outbox (
  id            bigserial PRIMARY KEY,
  subject       text NOT NULL,
  event_id      text NOT NULL UNIQUE,
  payload       text NOT NULL,
  trace_context jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  published_at  timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
CREATE INDEX outbox_published ON outbox (published_at) WHERE published_at IS NOT NULL;
