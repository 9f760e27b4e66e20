-- commit_entries no longer references commits through a foreign key. A commit's row and its entries
-- are inserted by one statement (commits-repo.ts record) and commits are never deleted, so an entry
-- without its commit cannot arise; the key's per-row check (one lookup of the commit per entry) was
-- about a sixth of the time a 25,000-file commit spends writing. Whatever deletes commits one day
-- must delete their entries in the same transaction.
ALTER TABLE commit_entries DROP CONSTRAINT commit_entries_commit_id_fkey;
