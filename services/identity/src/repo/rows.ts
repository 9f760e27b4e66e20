import type { Role, sessions } from '@lode/contracts';

export interface OrgRow {
  id: string;
  name: string;
  slug: string;
  created_at: Date;
}
export interface UserRow {
  id: string;
  name: string;
  avatar_url: string | null;
  email: string | null;
  created_at: Date;
}
export interface MembershipRow {
  org_id: string;
  user_id: string;
  role: Role;
  created_at: Date;
}
export interface ProjectRow {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  icon_url: string | null;
  write_rate_per_second: number | null;
  write_rate_burst: number | null;
  created_at: Date;
  deleted_at: Date | null;
  /** The user who deleted it; null when an operator did. */
  deleted_by: string | null;
  purge_after: Date | null;
  purged_at: Date | null;
}
export interface ApiKeyRow {
  id: string;
  project_id: string;
  user_id: string;
  key_hint: string;
  device_id: string | null;
  device_bound_at: Date | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}
export interface InvitationRow {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  /** As stored, or 'expired' where read through the repository's state expression. */
  state: sessions.InvitationState;
  closed_at: Date | null;
}
