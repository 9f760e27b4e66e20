-- A session's CSRF token is kept as its SHA-256 only, as its session token is: whoever reads the table
-- (a backup, a replica, a reporting role) cannot make a signed-in person's writes with it.
-- The plaintext tokens are not hashed over: browsers fetched them again from GET /api/v1/session,
-- which no longer answers them, so such a session could read but never write again. Every session
-- ends instead, and people sign in again (their next call is 401, which sends them to sign in).
DELETE FROM sessions;
ALTER TABLE sessions DROP COLUMN csrf_token;
ALTER TABLE sessions ADD COLUMN csrf_token_hash bytea NOT NULL;
