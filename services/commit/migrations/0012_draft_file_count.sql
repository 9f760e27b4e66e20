-- Issue 18: a draft keeps how many distinct files it has staged, added to by each staging call from
-- the rows it inserted (a file staged again replaces its row and adds nothing), so reading a draft —
-- its GET, every staging call, its commit — is one row, not a count over up to a million entries.
ALTER TABLE drafts ADD COLUMN file_count integer NOT NULL DEFAULT 0;
UPDATE drafts d SET file_count = (SELECT count(*) FROM draft_entries e WHERE e.draft_id = d.id);
