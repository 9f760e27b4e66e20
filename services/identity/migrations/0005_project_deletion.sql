-- A project deleted by its owners (or an operator) stays whole until purge_after: hidden, its keys
-- refused, and restorable. The purge then clears purge_after's project from every service; its row
-- stays as a tombstone (id, org, name and times), so the id is never reused and operators can see
-- what was purged and when.
ALTER TABLE projects
  ADD COLUMN deleted_at  timestamptz,
  ADD COLUMN deleted_by  text,
  ADD COLUMN purge_after timestamptz,
  ADD COLUMN purged_at   timestamptz,
  ADD CONSTRAINT projects_deletion_times CHECK ((deleted_at IS NULL) = (purge_after IS NULL) AND (purged_at IS NULL OR deleted_at IS NOT NULL));

-- A purged project gives its slug back: a new project of the org may take it.
ALTER TABLE projects DROP CONSTRAINT projects_org_slug_key;
CREATE UNIQUE INDEX projects_org_slug_key ON projects (org_id, slug) WHERE purged_at IS NULL;

-- The purge job's queue: deletions whose window has passed and that are not purged yet.
CREATE INDEX projects_purge_due ON projects (purge_after) WHERE purged_at IS NULL AND deleted_at IS NOT NULL;
