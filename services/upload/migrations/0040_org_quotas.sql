-- Storage quotas per organization, against its projects' stored bytes together (docs/storage.md,
-- Organization usage and quotas). The operator sets one through the admin API; the org's owners may
-- set a lower one of the org's own. The lower applies, beside each project's own quota (an upload
-- must fit both). This service does not keep which projects an org holds: it asks the identity
-- service. Checked at initiate, never at confirm. warned_at: when the org last crossed 80 % of it
-- (one warning per crossing; cleared once it is below again).
CREATE TABLE org_quotas (
  org_id         uuid PRIMARY KEY,
  operator_bytes bigint CHECK (operator_bytes >= 0),
  org_bytes      bigint CHECK (org_bytes >= 0),
  warned_at      timestamptz,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
