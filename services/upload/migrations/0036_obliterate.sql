-- Obliterate: a version is purged, never deleted. Its row stays (history shows it as removed: who,
-- when, why, by which obliteration) and its number is never reused; nothing resolves it any more
-- (a commit, a restore, a download), and its object is left to the collector once no live version
-- shares it. The columns are set together or not at all.
ALTER TABLE versions
  ADD COLUMN purged_at      timestamptz,
  ADD COLUMN purged_by      uuid,
  ADD COLUMN purged_by_name text,
  ADD COLUMN purge_reason   text CHECK (purge_reason IN ('obliterate')),
  ADD COLUMN purge_id       uuid,
  ADD CONSTRAINT versions_purge_recorded CHECK (
    (purged_at IS NULL) = (purged_by IS NULL) AND (purged_at IS NULL) = (purge_reason IS NULL) AND (purged_at IS NULL) = (purge_id IS NULL)
  );

-- The few purged versions of a project: downloads and history ask whether theirs are among them,
-- and a retried obliteration finds what it already purged.
CREATE INDEX versions_purged ON versions (project_id, file_id, version) WHERE purged_at IS NOT NULL;
CREATE INDEX versions_purge ON versions (purge_id) WHERE purge_id IS NOT NULL;

-- Which live versions use an object: what an obliteration frees, and what the collector re-checks
-- before deleting. A hash index: equality lookups only, and a few bytes an entry where a B-tree
-- would copy each 76-character key; every confirm writes one entry.
CREATE INDEX versions_live_by_object ON versions USING hash (storage_key) WHERE purged_at IS NULL;
