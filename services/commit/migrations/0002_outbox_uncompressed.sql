-- A commit.created part is about 512 KB of JSON (a 25,000-file commit writes about 5 MB). Kept out of
-- line and uncompressed: pglz compression of those payloads was one of the largest costs inside a
-- large commit's transaction, while the rows only live until their retention ends. (lz4 would do as
-- well, but not every Postgres build has it; the embedded one does not.)
ALTER TABLE outbox ALTER COLUMN payload SET STORAGE EXTERNAL;
