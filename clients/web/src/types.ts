/** The API's wire shapes the dashboard reads (docs/api.md), each an alias onto the SDK's generated/api.ts. */
import type { ReplyOf } from '../../sdk/src/generated/api.ts';

/** A keyset page of any list; the generated types spell it out for every list route. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** Who is signed in; the CSRF token is not here but in the lode_csrf cookie (api.ts). */
export type Session = ReplyOf<'/api/v1/session', 'get'>;
export type User = Session['user'];
export type Org = ReplyOf<'/api/v1/me/orgs', 'get'>['data'][number];
export type Role = Org['role'];
export type Project = ReplyOf<'/api/v1/orgs/{orgId}/projects', 'get'>['data'][number];
export type WriteRateLimit = NonNullable<Project['writeRateLimit']>;
export type ProjectDeletion = ReplyOf<'/api/v1/projects/{projectId}', 'delete'>;
/**
 * `defaultWriteRateLimit`: what a project without a limit of its own gets (the server's default);
 * `maxWriteRateLimit`: the most its owners and admins may set.
 */
export type ProjectOverview = ReplyOf<'/api/v1/projects/{projectId}/overview', 'get'>;
export type Member = ReplyOf<'/api/v1/orgs/{orgId}/members', 'get'>['data'][number];
/** An invitation as its org's owners and admins see it. */
export type OrgInvitation = ReplyOf<'/api/v1/orgs/{orgId}/invitations', 'get'>['data'][number];
export type InvitationState = OrgInvitation['state'];
/** An invitation as the person invited sees it. */
export type MyInvitation = ReplyOf<'/api/v1/me/invitations', 'get'>['data'][number];
export type ApiKey = ReplyOf<'/api/v1/projects/{projectId}/keys', 'get'>['data'][number];
export type TreeFile = ReplyOf<'/api/v1/projects/{projectId}/files', 'get'>['data'][number];
/** One child of a folder in GET /folders: a subfolder (its files at any depth counted and summed), or a file right in it. */
export type FolderChild = ReplyOf<'/api/v1/projects/{projectId}/folders', 'get'>['data'][number];
/** One result of POST /files/download-urls: the download form, or the error form (docs/api.md). */
export type DownloadResult = ReplyOf<'/api/v1/projects/{projectId}/files/download-urls', 'post'>['results'][number];
export type FileVersion = ReplyOf<'/api/v1/projects/{projectId}/files/{fileId}/versions', 'get'>['data'][number];
export type Commit = ReplyOf<'/api/v1/projects/{projectId}/commits', 'get'>['data'][number];
export type CommitFile = ReplyOf<'/api/v1/projects/{projectId}/commits/{commitId}/files', 'get'>['data'][number];
export type Branch = ReplyOf<'/api/v1/projects/{projectId}/branches', 'get'>['data'][number];
export type Lock = ReplyOf<'/api/v1/projects/{projectId}/locks', 'get'>['data'][number];
export type AcquireLocksResult = ReplyOf<'/api/v1/projects/{projectId}/locks', 'post'>;
/** Why POST /locks did not take a file: another user's lock (the entry is that lock), or another user's commit of it in progress. */
export type LockConflict = AcquireLocksResult['conflicts'][number];
/**
 * One file of a 409 `merge_conflict` refusal (its body's `conflicts`): kept by hand, since the
 * OpenAPI document does not describe refusals' details.
 */
export interface MergeConflict {
  fileId: string;
  path: string;
  sourceVersion: number | null;
  targetVersion: number | null;
  baseVersion: number | null;
}
export type Webhook = ReplyOf<'/api/v1/projects/{projectId}/webhooks', 'get'>['data'][number];
/** GET /usage: the project's storage figures, its quota, 90 days of history and, asked for, the breakdown by extension. */
export type UsageReply = ReplyOf<'/api/v1/projects/{projectId}/usage', 'get'>;
export type UsageDay = UsageReply['history'][number];
export type Quota = NonNullable<UsageReply['quota']>;
/** PUT /quota: the quota that applies, the operator's and the project's own. */
export type QuotaReply = ReplyOf<'/api/v1/projects/{projectId}/quota', 'put'>;
/** GET /retention: the project's retention rules, who set them and when they last ran. */
export type RetentionReply = ReplyOf<'/api/v1/projects/{projectId}/retention', 'get'>;
/** POST /retention/dry-run and /retention/run: what the rules remove (or removed). */
export type RetentionPlan = ReplyOf<'/api/v1/projects/{projectId}/retention/dry-run', 'post'>;
/** The project's org's storage, for its owners and admins: the projects' usage added up and the org quota. */
export type OrgUsageReply = ReplyOf<'/api/v1/projects/{projectId}/org/usage', 'get'>;
