-- Issue 17: branches created from any branch and deleted (names may be reused), the commit log, the
-- project tree and merge commits (docs/api.md, Branches; docs/architecture.md, Lineage).

-- A branch's lineage, kept by value: [{ "branch", "after", "through" }], its own commits first (those
-- of `branch` numbered after `after`, and up to `through`, null meaning no end), then those of the
-- branch it forked from up to the fork, and so on down to main. Sequence numbers are per project, so
-- the segments never overlap and a deleted branch's commits stay reachable from the branches forked
-- from it, while a new branch of the same name starts after them (its `after` is the project's last
-- sequence number when it was created).
ALTER TABLE branches
  ADD COLUMN created_after   integer NOT NULL DEFAULT 0,
  ADD COLUMN forked_from     text,
  ADD COLUMN lineage         jsonb,
  ADD COLUMN created_by_id   uuid,
  ADD COLUMN created_by_name text;
COMMENT ON COLUMN branches.head_seq IS 'the last commit on the lineage (the fork point until the branch commits)';
COMMENT ON COLUMN branches.base_seq IS 'the head of the branch forked from, when forked (forkedFrom.sequenceNum)';

-- Until now a branch other than main was created by its first commit, from main's head.
UPDATE branches b SET created_after = f.first_seq - 1, forked_from = 'main'
FROM (SELECT project_id, branch, min(sequence_num) AS first_seq FROM commits GROUP BY project_id, branch) f
WHERE b.name <> 'main' AND f.project_id = b.project_id AND f.branch = b.name;
UPDATE branches SET lineage = CASE
  WHEN name = 'main' THEN '[{"branch": "main", "after": 0, "through": null}]'::jsonb
  ELSE jsonb_build_array(jsonb_build_object('branch', name, 'after', created_after, 'through', null),
                         jsonb_build_object('branch', 'main', 'after', 0, 'through', created_after))
END;
ALTER TABLE branches ALTER COLUMN lineage SET NOT NULL;
-- Names listed in byte order.
CREATE INDEX branches_by_name ON branches (project_id, name COLLATE "C");

-- Branch creations and deletions so far, per project: their events carry it, so the sync read model
-- applies each once and in its place among the commits (docs/architecture.md, Lineage).
ALTER TABLE project_sequences ADD COLUMN branch_changes integer NOT NULL DEFAULT 0;

-- What made a commit: a client's commit, a restore or a merge.
ALTER TABLE commits ADD COLUMN kind text NOT NULL DEFAULT 'commit' CHECK (kind IN ('commit', 'restore', 'merge'));
-- Restores commit under the idempotency key restore:<id>; the records still kept name their commits.
UPDATE commits c SET kind = 'restore' FROM idempotency_keys k
WHERE k.idem_key LIKE 'restore:%' AND k.project_id = c.project_id AND k.response->>'id' = c.id::text;
-- The log: one segment of a lineage, newest first.
CREATE INDEX commits_log ON commits (project_id, branch, sequence_num);

-- A commit's files in path order (byte order), page by page.
CREATE INDEX commit_entries_by_path ON commit_entries (commit_id, path COLLATE "C", file_id);

-- The tree's live files in path order (byte order), page by page and under a folder.
CREATE INDEX tree_live_by_path ON tree (project_id, branch, path COLLATE "C") WHERE NOT deleted;

-- A merge's conflicts name each file's version at the fork point, which may be a deletion: deletions
-- by file (few; the versions' own indexes leave them out, so commits of versions write no more).
CREATE INDEX commit_entries_deletes ON commit_entries (project_id, file_id) WHERE action = 'delete';
