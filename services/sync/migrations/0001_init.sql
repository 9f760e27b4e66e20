-- The sync service's read model, built only from commit.created events (docs/architecture.md, "The
-- sync read model"). Nothing here is a source of truth: emptying it and replaying the events
-- rebuilds it. Path keys and hashes use the "C" collation: byte order for the keyset over the tree,
-- and cheaper comparisons than the database's locale.

-- How far each project's events are applied. A commit's parts are staged until its last part
-- arrives and then applied in one transaction, so a sync never sees half a commit.
CREATE TABLE progress (
  project_id    uuid PRIMARY KEY,
  applied_seq   integer NOT NULL DEFAULT 0,   -- every commit up to this sequence number is applied
  pending_seq   integer,                      -- the commit whose parts are being staged
  pending_part  integer NOT NULL DEFAULT 0    -- how many of its parts are staged
);

CREATE TABLE staged_entries (
  project_id  uuid NOT NULL,
  commit_seq  integer NOT NULL,
  file_id     uuid NOT NULL,
  path        text NOT NULL,
  path_key    text COLLATE "C" NOT NULL,
  action      text NOT NULL CHECK (action IN ('add', 'modify', 'delete')),
  version     integer,                      -- null for a delete
  sha256      text COLLATE "C",
  size        bigint,
  PRIMARY KEY (project_id, commit_seq, file_id)
);

-- Branches other than main. A branch starts as a copy of main's tree; its history is its own plus
-- main's up to base_seq (the commit before its first one), which is its lineage.
CREATE TABLE branches (
  project_id  uuid NOT NULL,
  name        text NOT NULL,
  base_seq    integer NOT NULL,
  PRIMARY KEY (project_id, name)
);

-- The committed tree per branch, keyed by case-folded NFC path. A deleted file keeps its row so
-- sync can tell "deleted remotely" from "never existed".
CREATE TABLE tree (
  project_id  uuid NOT NULL,
  branch      text NOT NULL,
  path_key    text COLLATE "C" NOT NULL,
  path        text NOT NULL,
  file_id     uuid NOT NULL,
  version     integer,                      -- last version committed, kept when deleted
  sha256      text COLLATE "C",
  size        bigint,
  commit_seq  integer NOT NULL,             -- commit that last changed the file, its deletion included
  deleted     boolean NOT NULL,
  PRIMARY KEY (project_id, branch, path_key)
);

-- Every version committed on a branch: which contents a path ever had there.
CREATE TABLE history (
  project_id  uuid NOT NULL,
  file_id     uuid NOT NULL,
  branch      text NOT NULL,
  version     integer NOT NULL,
  sha256      text COLLATE "C" NOT NULL,
  commit_seq  integer NOT NULL,
  PRIMARY KEY (project_id, file_id, branch, version)
);
-- "Did this path ever have this content on the lineage?", answered from the index alone.
CREATE INDEX history_content ON history (project_id, file_id, sha256) INCLUDE (branch, commit_seq);

-- The paths a multi-request sync session listed so far, so its last request can list the rest.
-- Unlogged: a crash empties them, which the last request detects (its earlier batches are
-- unknown) and answers 409 rather than reporting listed files as missing. A finished session is
-- removed in the background, off its last request's path.
CREATE UNLOGGED TABLE session_batches (
  project_id   uuid NOT NULL,
  session_id   uuid NOT NULL,
  batch        integer NOT NULL,
  recorded_at  timestamptz NOT NULL DEFAULT now(),
  finished     boolean NOT NULL DEFAULT false,
  PRIMARY KEY (project_id, session_id, batch)
);
CREATE UNLOGGED TABLE session_paths (
  project_id  uuid NOT NULL,
  session_id  uuid NOT NULL,
  path_key    text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, session_id, path_key)
);
