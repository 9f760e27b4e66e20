-- A session's listed path keys are kept one row per batch, joined by line breaks (paths have no
-- control characters), instead of one row per path: writing a 10,000-file batch as 10,000 index
-- entries cost the database as much as answering the batch. The last request anti-joins the tree
-- with them through one hash table (TreeRepository.listUnseen).
DROP TABLE session_paths;
-- Sessions in flight lose their earlier batches, which their last request reports (409
-- sync_session_incomplete), rather than listing files they hold as missing.
TRUNCATE session_batches;
ALTER TABLE session_batches ADD COLUMN path_keys text NOT NULL;
-- Uncompressed: compressing 230 KB of keys per batch costs more than the space it saves in a table
-- emptied within the hour.
ALTER TABLE session_batches ALTER COLUMN path_keys SET STORAGE EXTERNAL;
