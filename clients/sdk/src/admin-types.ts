// The admin API's answers (docs/api.md, Admin API), each with the fields its callers read. The
// answers hold more (createdAt, a project's write limit, a key's device…), which stay untyped here
// until these types are generated from the server's OpenAPI document.

export type Role = 'owner' | 'admin' | 'member';

export interface Organization {
  id: string;
  slug: string;
}

export interface User {
  id: string;
  name: string;
  /** How single sign-on and the dashboard's invitations find the user. */
  email: string | null;
}

export interface Membership {
  userId: string;
  role: Role;
}

export interface Project {
  id: string;
  orgId: string;
  slug: string;
}

/** A key as operators see it: never the key itself. */
export interface ApiKey {
  id: string;
}

/** The one answer that holds the key itself: only its hash is kept. */
export interface NewApiKey extends ApiKey {
  key: string;
}

export interface SignInLink {
  /** The dashboard's sign-in page, the one-time token in its fragment. */
  url: string;
  expiresAt: string;
}

export interface NewUser {
  name: string;
  email?: string | null;
  avatarUrl?: string | null;
}

export interface NewProject {
  name: string;
  slug: string;
  iconUrl?: string | null;
  /** Without it the project has the server's default write limit. */
  writeRateLimit?: { perSecond: number; burst: number };
}
