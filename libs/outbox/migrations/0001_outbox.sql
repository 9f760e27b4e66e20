-- The transactional outbox (libs/outbox): events written in the same transaction as the change they
-- describe, published afterwards by the relay. The commit service's schema created this very table
-- (its 0001 and 0002) before the library owned it; there this file changes nothing, takes no lock on
-- the busy table, and only records that the schema holds the library's table.
DO $$
BEGIN
  IF to_regclass('outbox') IS NOT NULL THEN
    RETURN;
  END IF;
  CREATE TABLE outbox (
    id            bigserial PRIMARY KEY,
    subject       text NOT NULL,
    event_id      text NOT NULL UNIQUE,
    payload       text NOT NULL,
    trace_context jsonb,
    created_at    timestamptz NOT NULL DEFAULT now(),
    published_at  timestamptz
  );
  -- A large event (a 25,000-file commit.created part is about 512 KB of JSON) is kept out of line and
  -- uncompressed: pglz compression of those payloads was one of the largest costs inside a large
  -- commit's transaction, while the rows only live until their retention ends. (lz4 would do as
  -- well, but not every Postgres build has it; the embedded one does not.)
  ALTER TABLE outbox ALTER COLUMN payload SET STORAGE EXTERNAL;
  CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
  CREATE INDEX outbox_published ON outbox (published_at) WHERE published_at IS NOT NULL;
END
$$;
