-- People sign in to the dashboard (issue 21): one-time sign-in links, OpenID Connect identities and
-- server-side sessions. Tokens are stored as SHA-256 hashes only, like keys.

ALTER TABLE users ADD COLUMN email text;
-- An OIDC sign-in finds an admin-made user by verified email: one user per address, case-insensitive.
CREATE UNIQUE INDEX users_email_key ON users (lower(email)) WHERE email IS NOT NULL;

-- When a key last authenticated, to within the gateways' key cache (LODE_AUTH_CACHE_MS) and a minute.
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
CREATE INDEX api_keys_project_user ON api_keys (project_id, user_id, created_at, id);

CREATE TABLE sign_in_links (
  token_hash bytea PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES users (id),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);

CREATE TABLE oidc_identities (
  issuer     text NOT NULL,
  subject    text NOT NULL,
  user_id    uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  PRIMARY KEY (issuer, subject)
);

CREATE TABLE sessions (
  id           uuid PRIMARY KEY,
  token_hash   bytea NOT NULL,
  -- Sent back in X-CSRF-Token on every state-changing call: a cross-site form cannot read it.
  csrf_token   text NOT NULL,
  user_id      uuid NOT NULL REFERENCES users (id),
  created_at   timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  last_seen_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  ended_at     timestamptz,
  CONSTRAINT sessions_token_hash_key UNIQUE (token_hash)
);
CREATE INDEX sessions_user ON sessions (user_id);
