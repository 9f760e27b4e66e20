-- Restore (spec 4.8): a version made by a restore names its restore, so a retried restore finds the
-- versions it already made instead of making more: at most one per file per restore.
ALTER TABLE versions ADD COLUMN restore_id uuid;
CREATE UNIQUE INDEX versions_restore ON versions (restore_id, file_id) WHERE restore_id IS NOT NULL;
ALTER TABLE versions ADD CONSTRAINT versions_restore_origin CHECK ((origin = 'restore') = (restore_id IS NOT NULL));
