-- Branches created from any branch, deleted, their names reused (issue 17; docs/architecture.md,
-- Lineage): each branch keeps its lineage by value, as the commit service does: segments
-- [{ "branch", "after", "through" }] of commit numbers per branch name. Until now a branch started
-- from main at base_seq.
ALTER TABLE branches ADD COLUMN lineage jsonb;
UPDATE branches SET lineage = jsonb_build_array(jsonb_build_object('branch', name, 'after', base_seq, 'through', null),
                                                jsonb_build_object('branch', 'main', 'after', 0, 'through', base_seq));
ALTER TABLE branches ALTER COLUMN lineage SET NOT NULL;

-- How many of the project's branch.changed events are applied (their `change`), in order with its
-- commits: a commit waits for the changes made before it.
ALTER TABLE progress ADD COLUMN applied_changes integer NOT NULL DEFAULT 0;

-- A reused name may commit a version its predecessor had committed: each is a row of its own, told
-- apart by the commit (a lineage names a branch's commits by number).
ALTER TABLE history DROP CONSTRAINT history_pkey, ADD PRIMARY KEY (project_id, file_id, branch, version, commit_seq);
