-- When a project's rules were last applied (a confirmed run, or the periodic job's run to its end),
-- kept apart from last_run_at, which stays the periodic job's claim: setting rules also moves the
-- claim (their first run waits an interval), and a claimed run may stop before it finishes, so the
-- claim never said when the rules last ran. Rows whose claim came after their rules were set were
-- run by the job then; the others have no known run.
ALTER TABLE retention_policies ADD COLUMN last_applied_at timestamptz;
UPDATE retention_policies SET last_applied_at = last_run_at WHERE last_run_at > updated_at;
