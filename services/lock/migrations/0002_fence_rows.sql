-- One row per commit fence, its files in an array: fencing a 25,000-file commit writes one row (and
-- settling deletes one) instead of 25,000 rows with three index entries each. Fences live only while
-- a commit runs (at most LODE_LOCK_FENCE_TTL_MS); those in place now are carried over. A replica still
-- running the previous code fails its fence and lock requests against the new table (the commit or
-- lock request is refused, never let through) until it is replaced.
CREATE TABLE fence_rows (
  fence_id    uuid PRIMARY KEY,
  project_id  uuid NOT NULL,
  user_id     uuid NOT NULL,
  user_name   text,
  file_ids    uuid[] NOT NULL,
  expires_at  timestamptz NOT NULL
);

INSERT INTO fence_rows (fence_id, project_id, user_id, user_name, file_ids, expires_at)
SELECT fence_id, project_id, user_id, max(user_name), array_agg(file_id), max(expires_at)
FROM fences GROUP BY fence_id, project_id, user_id;

DROP TABLE fences;
ALTER TABLE fence_rows RENAME TO fences;
ALTER INDEX fence_rows_pkey RENAME TO fences_pkey;
-- A lock request reads the project's unexpired fences and looks for its files in their lists.
CREATE INDEX fences_by_project ON fences (project_id);
CREATE INDEX fences_by_expiry ON fences (expires_at);
