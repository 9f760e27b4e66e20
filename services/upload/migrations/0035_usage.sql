-- Storage usage per project, kept incrementally. Every statement that changes what a project holds
-- (recording versions, storing a Git LFS object, making restore versions, and later purging versions
-- and collecting objects) appends one row of signed deltas here in the same statement, so usage is
-- never out of step with what it counts. No counter row is updated by those statements: a project's
-- parallel confirms would all queue on it. A periodic fold moves the deltas into `project_usage`
-- (DELETE … RETURNING, so replicas fold disjoint rows), and a read is the totals plus the few
-- deltas not folded yet.
CREATE TABLE usage_deltas (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id    uuid NOT NULL,
  logical_bytes bigint NOT NULL,
  stored_bytes  bigint NOT NULL,
  versions      bigint NOT NULL,
  objects       bigint NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_deltas_project ON usage_deltas (project_id);

-- The folded totals. logical: every live version's size; stored: the distinct objects kept for the
-- project (each upload's own object, each Git LFS object; a deduplicated or restored version adds
-- none); versions and objects: their counts.
CREATE TABLE project_usage (
  project_id    uuid PRIMARY KEY,
  logical_bytes bigint NOT NULL DEFAULT 0,
  stored_bytes  bigint NOT NULL DEFAULT 0,
  versions      bigint NOT NULL DEFAULT 0,
  objects       bigint NOT NULL DEFAULT 0,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- The totals as each UTC day ended (the current day's row as of the last fold), for a chart.
CREATE TABLE usage_history (
  project_id    uuid NOT NULL,
  day           date NOT NULL,
  logical_bytes bigint NOT NULL,
  stored_bytes  bigint NOT NULL,
  versions      bigint NOT NULL,
  objects       bigint NOT NULL,
  PRIMARY KEY (project_id, day)
);

-- What projects held before usage was kept: counted once here. An object is a distinct storage key
-- among the versions and the content store (a deduplicated or restored version shares its source's).
INSERT INTO project_usage (project_id, logical_bytes, stored_bytes, versions, objects)
SELECT project_id, sum(logical_bytes), sum(stored_bytes), sum(versions), sum(objects)
FROM (
  SELECT project_id, sum(size) AS logical_bytes, 0 AS stored_bytes, count(*) AS versions, 0 AS objects
  FROM versions GROUP BY project_id
  UNION ALL
  SELECT project_id, 0, sum(size), 0, count(*)
  FROM (SELECT project_id, storage_key, size FROM versions UNION SELECT project_id, storage_key, size FROM blobs) AS stored
  GROUP BY project_id
) AS counted
GROUP BY project_id;

INSERT INTO usage_history (project_id, day, logical_bytes, stored_bytes, versions, objects)
SELECT project_id, (now() AT TIME ZONE 'UTC')::date, logical_bytes, stored_bytes, versions, objects FROM project_usage;
