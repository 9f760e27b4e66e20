-- When the read model last applied a commit or a branch change of the project (for a project it has
-- applied nothing of yet, when it staged its first event): a sync that finds the read model behind
-- reports how long it has gone without advancing (sync_catching_up's secondsBehind). Rows from
-- before this column take the migration's time: they advanced then or earlier.
ALTER TABLE progress ADD COLUMN advanced_at timestamptz NOT NULL DEFAULT now();
