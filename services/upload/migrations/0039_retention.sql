-- Retention rules (docs/storage.md, Retention): per project, which old versions of which paths are
-- removed on their own. The rules are one small document per project, replaced whole.
CREATE TABLE retention_policies (
  project_id      uuid PRIMARY KEY,
  rules           jsonb NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  updated_by      uuid NOT NULL,
  updated_by_name text NOT NULL,
  -- When a replica of the periodic job last claimed the project: one claim per interval.
  last_run_at     timestamptz
);
CREATE INDEX retention_policies_due ON retention_policies (last_run_at NULLS FIRST);

-- Retention purges versions as obliterate does, naming the rule (its glob) that removed each one.
-- The periodic job runs for nobody: its purges alone record no user. The new checks are added NOT
-- VALID here and validated by the next migration, in a transaction of its own: this one's lock on
-- versions then lasts no scan, and validating takes a lock that lets writes go on.
ALTER TABLE versions
  DROP CONSTRAINT versions_purge_reason_check,
  DROP CONSTRAINT versions_purge_recorded,
  ADD COLUMN purge_rule text,
  ADD CONSTRAINT versions_purge_reason_check CHECK (purge_reason IN ('obliterate', 'retention')) NOT VALID,
  ADD CONSTRAINT versions_purge_recorded CHECK (
    (purged_at IS NULL) = (purge_reason IS NULL) AND (purged_at IS NULL) = (purge_id IS NULL)
    AND (purged_at IS NOT NULL OR purged_by IS NULL)
    AND (purged_by IS NOT NULL OR purge_reason IS NULL OR purge_reason = 'retention')
    AND (purge_rule IS NOT NULL) = (purge_reason IS NOT DISTINCT FROM 'retention')
  ) NOT VALID;
