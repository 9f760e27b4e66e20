// The admin API's shapes (docs/api.md, Admin API), each an alias onto generated/api.ts.
import type { BodyOf, ReplyOf } from './generated/api.ts';

export type Organization = ReplyOf<'/admin/v1/orgs', 'post'>;

/** `email` is how single sign-on and the dashboard's invitations find the user. */
export type User = ReplyOf<'/admin/v1/users', 'post'>;

export type Membership = ReplyOf<'/admin/v1/orgs/{orgId}/members', 'post'>;
export type Role = Membership['role'];

/** `deletedAt`, `purgeAfter`, `purgedAt`: set once it is deleted, and purged (its id is never reused). */
export type Project = ReplyOf<'/admin/v1/orgs/{orgId}/projects', 'post'>;

/** A key as operators see it: never the key itself. */
export type ApiKey = ReplyOf<'/admin/v1/keys/{keyId}', 'delete'>;

/** The one answer that holds the key itself: only its hash is kept. */
export type NewApiKey = ReplyOf<'/admin/v1/projects/{projectId}/keys', 'post'>;

/** `url` is the dashboard's sign-in page, the one-time token in its fragment. */
export type SignInLink = ReplyOf<'/admin/v1/users/{userId}/sign-in-links', 'post'>;

export type NewUser = BodyOf<'/admin/v1/users', 'post'>;

/** Without `writeRateLimit` the project has the server's default write limit. */
export type NewProject = BodyOf<'/admin/v1/orgs/{orgId}/projects', 'post'>;
