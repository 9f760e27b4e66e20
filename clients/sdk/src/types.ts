// The shapes of the Lode API (docs/api.md), written for clients that share no code with the server.

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

export interface Identity {
  valid: true;
  userId: string;
  userName: string;
  userAvatarUrl: string | null;
  projectId: string;
  projectName: string;
  projectSlug: string;
  projectIconUrl: string | null;
  orgId: string;
  orgName: string;
  orgSlug: string;
}

export type SyncStatus = 'up_to_date' | 'outdated' | 'missing' | 'local_only' | 'modified' | 'conflict' | 'deleted_remote';

export const SYNC_STATUSES: readonly SyncStatus[] = ['up_to_date', 'outdated', 'missing', 'local_only', 'modified', 'conflict', 'deleted_remote'];

export interface SyncFile {
  path: string;
  sha256: string;
  baseVersion?: number;
}

export interface SyncRequest {
  files: SyncFile[];
  includeRemoteOnly?: boolean;
  branch?: string;
  session?: { id: string; batch: number };
}

export interface SyncRow {
  path: string;
  status: SyncStatus;
  fileId: string | null;
  remoteVersion: number | null;
  remoteSha256: string | null;
  remoteCommitSeq: number | null;
  remoteSize: number | null;
}

export interface SyncResponse {
  files: SyncRow[];
  latestCommitSeq: number;
}

export interface InitiateFile {
  path: string;
  sha256: string;
  size: number;
  /** Base64 of the content's MD5. */
  contentMd5: string;
}

export interface UploadForm {
  path: string;
  fileId: string;
  version: number;
  storageKey: string;
  uploadUrl: string;
  requiredHeaders: Record<string, string>;
}

export interface DedupForm {
  path: string;
  fileId: string;
  version: number;
  dedup: true;
}

export interface PathError {
  path: string;
  error: string;
  code: string;
}

export type InitiateResult = UploadForm | DedupForm | PathError;

export type ConfirmBody = { fileId: string; version: number; sha256: string; size: number } & ({ storageKey: string } | { dedup: true });

export type ConfirmResult = { fileId: string; version: number; confirmed: true } | { fileId: string; version: number; error: string; code: string; versionConflict?: boolean };

export type CommitAction = 'add' | 'modify' | 'delete';

export interface CommitEntry {
  fileId: string;
  action: CommitAction;
  version?: number;
}

export interface CommitRequest {
  message: string;
  fileVersions: CommitEntry[];
  branch?: string;
}

export interface CommitCreated {
  id: string;
  sequenceNum: number;
  message: string;
  fileCount: number;
  branch: string;
}

export interface Commit extends CommitCreated {
  kind: 'commit' | 'restore' | 'merge' | 'draft';
  authorId: string;
  authorName: string;
  createdAt: string;
}

export interface CommitFile {
  fileId: string;
  path: string;
  action: CommitAction;
  version: number | null;
  sha256: string | null;
  size: number | null;
}

export interface TreeFile {
  fileId: string;
  path: string;
  version: number;
  sha256: string;
  size: number;
  commitSeq: number;
  updatedAt: string;
}

/** A subfolder in a folder listing; its `path` (with its trailing `/`) is the `prefix` that lists it. */
export interface FolderEntry {
  type: 'folder';
  name: string;
  path: string;
  /** Live files under it at any depth, and their total size in bytes. */
  fileCount: number;
  totalSize: number;
}

/** A file right in the listed folder. */
export interface FolderFile extends TreeFile {
  type: 'file';
  name: string;
}

/** One child of a folder: its subfolders come first, then its files (GET /folders). */
export type FolderChild = FolderEntry | FolderFile;

export interface FileVersion {
  id: string;
  version: number;
  size: number;
  sha256: string;
  uploaderId: string;
  uploaderName: string;
  commitId: string;
  downloadUrl: string;
  createdAt: string;
}

export interface Branch {
  name: string;
  headCommitId: string | null;
  headSequenceNum: number | null;
  forkedFrom: { branch: string; sequenceNum: number | null } | null;
  createdAt: string | null;
  createdBy: { userId: string; userName: string } | null;
}

export interface MergeRequest {
  into?: string;
  message?: string;
  resolutions?: { fileId: string; take: 'source' | 'target' }[];
}

export interface DownloadRequestEntry {
  fileId?: string;
  path?: string;
  version?: number;
}

export type DownloadResult =
  | { fileId: string; path: string; version: number; sha256: string; size: number; downloadUrl: string; expiresAt: string }
  | { fileId?: string; path?: string; error: string; code: string };

export interface RestoreResponse {
  commitId: string;
  sequenceNum: number;
  restored: { fileId: string; newVersion: number }[];
  skipped: { fileId: string; toVersion: number; code: string; message: string }[];
}

export interface Lock {
  fileId: string;
  path: string;
  userId: string;
  userName: string;
  userAvatarUrl: string | null;
  isMine: boolean;
  note: string;
  lockedAt: string;
}

/**
 * One file of a 409 `file_locked` refusal (a commit, a draft's commit, a merge, a restore): the lock
 * another user holds on it, with their note ("" when none). The refusal's body carries these as
 * `lockedFiles` (LodeApiError.body).
 */
export type LockedFile = Pick<Lock, 'fileId' | 'path' | 'userId' | 'userName' | 'note' | 'lockedAt'>;

export type LockConflict = (Lock & { reason: 'locked' }) | { reason: 'committing'; fileId: string; path: string; userId: string; userName: string | null };

export interface LockResponse {
  acquired: Lock[];
  conflicts: LockConflict[];
  notFound: string[];
}

export type NotReleased = (Lock & { reason: 'held_by_other' }) | { reason: 'not_locked'; fileId: string; path: string };

export interface UnlockResponse {
  released: Lock[];
  notReleased: NotReleased[];
  notFound: string[];
}

export interface LockQuery extends PageQuery {
  pathPrefix?: string;
  userId?: string;
}

export interface Draft {
  id: string;
  message: string;
  branch: string;
  /** Distinct files staged so far. */
  fileCount: number;
  createdAt: string;
  /** Past this the draft answers 404 everywhere (docs/api.md, Draft commits). */
  expiresAt: string;
}

/** A shared plugin of the organization, by its newest version (semver precedence). */
export interface Plugin {
  name: string;
  latestVersion: string;
  description: string | null;
  updatedAt: string;
}

export interface PluginVersion {
  name: string;
  version: string;
  sha256: string;
  size: number;
  description: string | null;
  publishedBy: { userId: string; userName: string };
  createdAt: string;
  /** A presigned GET of the bytes, valid for an hour. */
  downloadUrl: string;
}

export interface PluginPublish {
  /** Semver exactly as written on semver.org: `1.4.0`, `2.0.0-rc.1`. */
  version: string;
  sha256: string;
  size: number;
  /** Base64 of the content's MD5. */
  contentMd5: string;
  description?: string;
}

export interface PluginUploadForm {
  name: string;
  version: string;
  storageKey: string;
  uploadUrl: string;
  requiredHeaders: Record<string, string>;
}

export interface PluginConfirm {
  version: string;
  storageKey: string;
  sha256: string;
  size: number;
}

export type PublicEventType = 'commit.created' | 'lock.acquired' | 'lock.released' | 'branch.created' | 'branch.deleted' | 'plugin.published';

/** The envelope of every public event (docs/api.md, Public events); `data` depends on `type`. */
export interface PublicEvent {
  id: string;
  type: string;
  projectId: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

export interface Webhook {
  id: string;
  url: string;
  events: PublicEventType[];
  description: string;
  disabled: boolean;
  /** Why the server disabled it (a 410 answer), or null. */
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The signing secret (`whsec_…`) is answered only at creation and on `rotateSecret`. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

export interface WebhookCreate {
  url: string;
  events: PublicEventType[];
  description?: string;
}

export interface WebhookChanges {
  url?: string;
  events?: PublicEventType[];
  description?: string;
  disabled?: boolean;
  rotateSecret?: true;
}

export interface WebhookDelivery {
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}
