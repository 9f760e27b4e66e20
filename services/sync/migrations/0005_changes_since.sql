-- GET /changes lists a branch's files changed after a commit: an index on the commit that last
-- changed each file answers it from the index, whatever the size of the tree.
CREATE INDEX tree_changes ON tree (project_id, branch, commit_seq, path_key);

-- Each incarnation of a branch name: a branch deleted and created again is another tree, whose rows
-- keep their parent's commit numbers, so a client's "changes since" against the old one would be
-- wrong. The new row gets a new generation, and a client naming the old one is told to sync in full.
ALTER TABLE branches ADD COLUMN generation uuid NOT NULL DEFAULT gen_random_uuid();
