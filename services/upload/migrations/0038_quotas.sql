-- Storage quotas per project, against its stored bytes (docs/storage.md, Quotas). The operator sets
-- one through the admin API; the org's owners and admins may set a lower one of the project's own.
-- The lower applies. Checked when an upload is initiated (never at confirm, so a commit of uploads
-- already under way never half-succeeds). warned_at: when the project last crossed 80 % of it (one
-- warning event per crossing; cleared once it is below again).
CREATE TABLE project_quotas (
  project_id     uuid PRIMARY KEY,
  operator_bytes bigint CHECK (operator_bytes >= 0),
  project_bytes  bigint CHECK (project_bytes >= 0),
  warned_at      timestamptz,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
