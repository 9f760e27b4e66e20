// The shapes of the Lode API (docs/api.md), by the names the SDK's users know, each an alias onto
// generated/api.ts: the server's OpenAPI document rendered as types, so they cannot drift from it.
import type { BodyOf, paths, QueryOf, ReplyOf } from './generated/api.ts';

/** A keyset page of any list; the generated types spell it out for every list route. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

export type Identity = ReplyOf<'/api/v1/auth/validate-key', 'post'>;

export type SyncRequest = BodyOf<'/api/v1/projects/{projectId}/sync', 'post'>;
export type SyncFile = SyncRequest['files'][number];
export type SyncResponse = ReplyOf<'/api/v1/projects/{projectId}/sync', 'post'>;
export type ChangesQuery = QueryOf<'/api/v1/projects/{projectId}/changes', 'get'>;
export type ChangesPage = ReplyOf<'/api/v1/projects/{projectId}/changes', 'get'>;
export type Change = ChangesPage['data'][number];
export type SyncRow = SyncResponse['files'][number];
export type SyncStatus = SyncRow['status'];

// Keyed by every status, so the compiler refuses this list when the server adds or drops one.
const SYNC_STATUS_KEYS: Record<SyncStatus, true> = {
  up_to_date: true,
  outdated: true,
  missing: true,
  local_only: true,
  modified: true,
  conflict: true,
  deleted_remote: true,
};

export const SYNC_STATUSES = Object.keys(SYNC_STATUS_KEYS) as readonly SyncStatus[];

/** `contentMd5` is the Base64 of the content's MD5. */
export type InitiateFile = BodyOf<'/api/v1/projects/{projectId}/files/upload/initiate', 'post'>;
export type InitiateResult = ReplyOf<'/api/v1/projects/{projectId}/files/upload/initiate-batch', 'post'>['results'][number];
export type UploadForm = Extract<InitiateResult, { uploadUrl: string }>;
/**
 * A multipart upload's reservation: `multipart.parts` are the parts still to PUT, each to its own URL
 * with its `requiredHeaders` sent verbatim; `multipart.uploaded` the parts the store already holds
 * (a re-initiated upload's, resumed).
 */
export type MultipartForm = Extract<InitiateResult, { multipart: unknown }>;
export type PartForm = MultipartForm['multipart']['parts'][number];
export type StoredPart = MultipartForm['multipart']['uploaded'][number];
export type DedupForm = Extract<InitiateResult, { dedup: true }>;
export type PathError = Extract<InitiateResult, { error: string }>;

/**
 * The server takes `storageKey` and `dedup` both optional and refuses a body with neither; this
 * type asks for exactly one, so the compiler catches what the server would answer 400 to.
 */
export type ConfirmBody = Omit<BodyOf<'/api/v1/projects/{projectId}/files/upload/confirm', 'post'>, 'storageKey' | 'dedup'> &
  ({ storageKey: string } | { dedup: true });

export type ConfirmResult = ReplyOf<'/api/v1/projects/{projectId}/files/upload/confirm-batch', 'post'>['results'][number];

export type CommitRequest = BodyOf<'/api/v1/projects/{projectId}/commits', 'post'>;
/** `version` is required to add or modify a file, optional to delete one. */
export type CommitEntry = CommitRequest['fileVersions'][number];
export type CommitCreated = ReplyOf<'/api/v1/projects/{projectId}/commits', 'post'>;
export type Commit = ReplyOf<'/api/v1/projects/{projectId}/commits/{commitId}', 'get'>;
export type CommitFile = ReplyOf<'/api/v1/projects/{projectId}/commits/{commitId}/files', 'get'>['data'][number];
export type CommitAction = CommitFile['action'];

export type TreeFile = ReplyOf<'/api/v1/projects/{projectId}/files', 'get'>['data'][number];

/** One child of a folder: its subfolders come first, then its files (GET /folders). */
export type FolderChild = ReplyOf<'/api/v1/projects/{projectId}/folders', 'get'>['data'][number];
/**
 * A subfolder in a folder listing; its `path` (with its trailing `/`) is the `prefix` that lists it.
 * `fileCount` and `totalSize`: live files under it at any depth, and their total size in bytes.
 */
export type FolderEntry = Extract<FolderChild, { type: 'folder' }>;
/** A file right in the listed folder. */
export type FolderFile = Extract<FolderChild, { type: 'file' }>;

export type FileVersion = ReplyOf<'/api/v1/projects/{projectId}/files/{fileId}/versions', 'get'>['data'][number];

export type Branch = ReplyOf<'/api/v1/projects/{projectId}/branches', 'get'>['data'][number];
export type MergeRequest = BodyOf<'/api/v1/projects/{projectId}/branches/{name}/merge', 'post'>;

export type DownloadRequestEntry = BodyOf<'/api/v1/projects/{projectId}/files/download-urls', 'post'>['files'][number];
export type DownloadResult = ReplyOf<'/api/v1/projects/{projectId}/files/download-urls', 'post'>['results'][number];

export type RestoreResponse = ReplyOf<'/api/v1/projects/{projectId}/restore', 'post'>;

export type Lock = ReplyOf<'/api/v1/projects/{projectId}/locks', 'get'>['data'][number];

/**
 * One file of a 409 `file_locked` refusal (a commit, a draft's commit, a merge, a restore): the lock
 * another user holds on it, with their note ("" when none). The refusal's body carries these as
 * `lockedFiles` (LodeApiError.body); the OpenAPI document does not describe refusals' details.
 */
export type LockedFile = Pick<Lock, 'fileId' | 'path' | 'userId' | 'userName' | 'note' | 'lockedAt'>;

export type LockResponse = ReplyOf<'/api/v1/projects/{projectId}/locks', 'post'>;
export type LockConflict = LockResponse['conflicts'][number];
export type UnlockResponse = ReplyOf<'/api/v1/projects/{projectId}/locks', 'delete'>;
export type NotReleased = UnlockResponse['notReleased'][number];
export type LockQuery = QueryOf<'/api/v1/projects/{projectId}/locks', 'get'>;

/** `fileCount`: distinct files staged so far; past `expiresAt` the draft answers 404 everywhere (docs/api.md, Draft commits). */
export type Draft = ReplyOf<'/api/v1/projects/{projectId}/drafts/{draftId}', 'get'>;

/** A shared plugin of the organization, by its newest version (semver precedence). */
export type Plugin = ReplyOf<'/api/v1/projects/{projectId}/plugins', 'get'>['data'][number];
/** `downloadUrl` is a presigned GET of the bytes, valid for an hour. */
export type PluginVersion = ReplyOf<'/api/v1/projects/{projectId}/plugins/{name}/versions', 'get'>['data'][number];
/** `version` is semver exactly as written on semver.org (`1.4.0`, `2.0.0-rc.1`); `contentMd5` the Base64 of the content's MD5. */
export type PluginPublish = BodyOf<'/api/v1/projects/{projectId}/plugins/{name}/versions/initiate', 'post'>;
export type PluginUploadForm = ReplyOf<'/api/v1/projects/{projectId}/plugins/{name}/versions/initiate', 'post'>;
export type PluginConfirm = BodyOf<'/api/v1/projects/{projectId}/plugins/{name}/versions/confirm', 'post'>;

/** The envelope of every public event (docs/api.md, Public events); `data` depends on `type`. */
export type PublicEvent = paths['/api/v1/projects/{projectId}/events']['get']['responses'][200]['content']['text/event-stream'];

/** `disabledReason`: why the server disabled it (a 410 answer), or null. */
export type Webhook = ReplyOf<'/api/v1/projects/{projectId}/webhooks/{webhookId}', 'get'>;
export type PublicEventType = Webhook['events'][number];
/** The signing secret (`whsec_…`) is answered only at creation and on `rotateSecret`. */
export type WebhookWithSecret = ReplyOf<'/api/v1/projects/{projectId}/webhooks', 'post'>;
export type WebhookCreate = BodyOf<'/api/v1/projects/{projectId}/webhooks', 'post'>;
export type WebhookChanges = BodyOf<'/api/v1/projects/{projectId}/webhooks/{webhookId}', 'patch'>;
export type WebhookDelivery = ReplyOf<'/api/v1/projects/{projectId}/webhooks/{webhookId}/deliveries', 'get'>['data'][number];

/** A project's storage (docs/api.md, Storage usage): logical vs stored bytes, quota, 90 days of history, optional breakdowns. */
export type Usage = ReplyOf<'/api/v1/projects/{projectId}/usage', 'get'>;
export type UsageQuery = QueryOf<'/api/v1/projects/{projectId}/usage', 'get'>;
export type ExtensionUsage = NonNullable<Usage['byExtension']>[number];

export type ObliterateBody = BodyOf<'/api/v1/projects/{projectId}/obliterate', 'post'>;
/** What to obliterate: every version of the file at a path (any letter case) or of a file id, or one version of a file id. */
export type ObliterateTarget = { path: string } | { fileId: string; version?: number };
/** A dry run (the plan and its `confirmToken`), or the run that token confirms. */
export type ObliterateMode = { dryRun: true } | { confirmToken: string };
/** The plan of a dry run, or what a run removed (`obliteratedAt` set). */
export type Obliteration = ReplyOf<'/api/v1/projects/{projectId}/obliterate', 'post'>;
export type PlannedVersion = Obliteration['versions'][number];

/** A project's retention rules, who set them and when the periodic job last applied them. */
export type RetentionSettings = ReplyOf<'/api/v1/projects/{projectId}/retention', 'get'>;
/** One rule: the versions of paths matching `glob` (any letter case) past the newest `keepLast` and older than `keepDays` go. */
export type RetentionRule = RetentionSettings['rules'][number];
/** What the rules remove now (a dry run, with its `confirmToken`), or what a run removed (`appliedAt` set). */
export type RetentionPlan = ReplyOf<'/api/v1/projects/{projectId}/retention/dry-run', 'post'>;
/** A deleted project and when it will be purged (`purgeAfter`): until then an owner can bring it back. */
export type ProjectDeletion = ReplyOf<'/api/v1/projects/{projectId}', 'delete'>;

/** The quota that applies, the operator's and the project's own. */
export type QuotaSettings = ReplyOf<'/api/v1/projects/{projectId}/quota', 'put'>;

/** The key's org's storage (owners and admins): its projects' usage added up, per project, 90 days of history, the org quota. */
export type OrgUsage = ReplyOf<'/api/v1/projects/{projectId}/org/usage', 'get'>;
export type OrgProjectUsage = OrgUsage['projects'][number];
/** The org quota that applies, the operator's and the org's own. */
export type OrgQuotaSettings = ReplyOf<'/api/v1/projects/{projectId}/org/quota', 'put'>;
