-- The restore service's schema: one row per restore request (spec 4.8), for idempotency and audit.
-- No other service reads it; the versions and the commit a restore makes live with their owners.

CREATE TABLE restore_requests (
  id            uuid PRIMARY KEY,            -- the restoreId: names the versions it makes and its commit's idempotency key
  project_id    uuid NOT NULL,
  key_id        uuid NOT NULL,
  user_id       uuid NOT NULL,
  idem_key      text,                        -- X-Idempotency-Key; null when none was sent, or once it expired
  request_hash  text NOT NULL,
  file_count    integer NOT NULL,
  -- pending: nothing decided yet; prepared: versions made, `plan` is the commit to make;
  -- done: committed, `response` is what every retry answers.
  state         text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'prepared', 'done')),
  plan          jsonb,
  response      jsonb,
  commit_id     uuid,
  sequence_num  integer,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX restore_requests_idem ON restore_requests (project_id, key_id, idem_key) WHERE idem_key IS NOT NULL;
CREATE INDEX restore_requests_age ON restore_requests (created_at);
