-- A user joins another organization only by accepting an invitation: an owner or admin invites an
-- email address, and the person signed in with that address accepts or declines it, once. Nothing
-- links an invitation to a user before then, so inviting tells nothing of who has an address.

CREATE TABLE invitations (
  id         uuid PRIMARY KEY,
  org_id     uuid NOT NULL REFERENCES orgs (id),
  email      text NOT NULL,
  role       text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  invited_by uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  expires_at timestamptz NOT NULL,
  -- 'pending' until accepted, declined or revoked (each once, at closed_at); expiry is read from expires_at.
  state      text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'accepted', 'declined', 'revoked')),
  closed_at  timestamptz,
  CHECK ((state = 'pending') = (closed_at IS NULL))
);
-- One open invitation per address and org (inviting again replaces it); the invitee's list looks them up by address.
CREATE UNIQUE INDEX invitations_open_email ON invitations (org_id, lower(email)) WHERE state = 'pending';
CREATE INDEX invitations_pending_email ON invitations (lower(email)) WHERE state = 'pending';
CREATE INDEX invitations_org ON invitations (org_id, created_at, id) WHERE state = 'pending';
-- The purge deletes by expiry.
CREATE INDEX invitations_expires ON invitations (expires_at);
