/**
 * The one catalogue of domain errors. An error knows its code and its details, never an HTTP status:
 * the gateway maps codes to statuses in one table (services/gateway/src/http/error-status.ts).
 */
export const errorCodes = [
  'validation_failed',
  'invalid_json',
  'payload_too_large',
  'unsupported_media_type',
  'file_too_large',
  'batch_too_large',
  'not_found',
  'route_not_found',
  'missing_key',
  'invalid_key',
  'key_revoked',
  'device_mismatch',
  'unauthorized',
  'forbidden',
  'conflict',
  'invitation_required',
  'slug_taken',
  'path_case_conflict',
  'version_conflict',
  'version_exists',
  'upload_incomplete',
  'content_mismatch',
  'version_purged',
  'project_deleted',
  'project_purged',
  'project_not_deleted',
  'quota_exceeded',
  'file_locked',
  'version_not_confirmed',
  'stale_version',
  'file_not_in_branch',
  'idempotency_key_reused',
  'idempotency_in_progress',
  'nothing_to_restore',
  'branch_exists',
  'branch_protected',
  'merge_conflict',
  'nothing_to_merge',
  'empty_draft',
  'sync_session_incomplete',
  'sync_catching_up',
  'changes_expired',
  'rate_limited',
  'too_many_feeds',
  'too_many_failed_attempts',
  'service_unavailable',
  'timeout',
  'internal',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (errorCodes as readonly string[]).includes(value);
}

export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; message: string } & ErrorDetails {
    return { ...this.details, code: this.code, message: this.message };
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** Factories fix each error's code and wording so the same condition reads the same everywhere. */
export const errors = {
  validation: (message: string, details?: ErrorDetails) => new AppError('validation_failed', message, details),
  invalidJson: () => new AppError('invalid_json', 'Request body is not valid JSON'),
  payloadTooLarge: (limit: string) => new AppError('payload_too_large', `Request body exceeds the ${limit} limit`),
  /** A body that inflates far more than JSON does is refused before it is inflated further. */
  payloadTooCompressed: (maxRatio: number) =>
    new AppError('payload_too_large', `Request body inflates to more than ${maxRatio} times its compressed size; send it uncompressed or less compressed`, {
      maxRatio,
    }),
  unsupportedMediaType: (message: string) => new AppError('unsupported_media_type', message),
  fileTooLarge: (size: number, max: number) => new AppError('file_too_large', `File size ${size} exceeds the maximum of ${max} bytes`, { maxSize: max }),
  batchTooLarge: (what: string, max: number, hint?: string) =>
    new AppError('batch_too_large', `At most ${max} ${what} per request${hint ? `; ${hint}` : ''}`, { max }),
  notFound: (what: string) => new AppError('not_found', `${what} not found`),
  routeNotFound: (method: string, path: string) => new AppError('route_not_found', `No route for ${method} ${path}`),
  missingKey: () => new AppError('missing_key', 'Missing API key: send Authorization: Bearer <key>'),
  invalidKey: () => new AppError('invalid_key', 'API key is not valid'),
  keyRevoked: () => new AppError('key_revoked', 'API key has been revoked'),
  deviceMismatch: () => new AppError('device_mismatch', 'API key is bound to another device'),
  deviceRequired: () => new AppError('device_mismatch', 'API key is bound to a device: send its id in the X-Device-Id header'),
  unauthorized: (message = 'Not authorized') => new AppError('unauthorized', message),
  forbidden: (message: string) => new AppError('forbidden', message),
  conflict: (message: string, details?: ErrorDetails) => new AppError('conflict', message, details),
  /** A person joins an organization only by accepting an invitation: nobody adds them directly. */
  invitationRequired: () =>
    new AppError('invitation_required', 'This person is not a member of this organization: invite them by email, and they join when they accept'),
  slugTaken: (slug: string) => new AppError('slug_taken', `Slug "${slug}" is already taken`),
  pathCaseConflict: (path: string, existing: string) =>
    new AppError('path_case_conflict', `Path "${path}" differs only in case from existing "${existing}"`, {
      existingPath: existing,
    }),
  versionConflict: (fileId: string, version: number) =>
    new AppError('version_conflict', `Version ${version} of file ${fileId} was taken by another upload; initiate again`, {
      versionConflict: true,
    }),
  /** Plugin versions are immutable (docs/api.md, Plugins): a published version is never replaced. */
  versionExists: (name: string, version: string) =>
    new AppError('version_exists', `Plugin "${name}" already has version ${version}; versions are immutable, publish a new one`),
  uploadIncomplete: (message: string) => new AppError('upload_incomplete', message),
  /** An obliterated version is gone for good: its history entry stays, its bytes do not. */
  versionPurged: (version: number, purgedAt: string) =>
    new AppError('version_purged', `Version ${version} of this file was obliterated (${purgedAt}); its content is no longer available`, { purgedAt }),
  contentMismatch: (message: string) => new AppError('content_mismatch', message),
  /** A deleted project is inert until purged: nothing reads or writes it, and deleting it again changes nothing. */
  projectDeleted: (purgeAfter: string) =>
    new AppError('project_deleted', `This project was deleted; it will be purged after ${purgeAfter} unless an owner brings it back`, { purgeAfter }),
  projectPurged: (purgedAt: string) => new AppError('project_purged', `This project was purged (${purgedAt}); nothing can bring it back`, { purgedAt }),
  projectNotDeleted: () => new AppError('project_not_deleted', 'This project is not deleted'),
  /**
   * An upload that would take the project's stored bytes past its quota, or its org's projects' together
   * past the org's (`quotaSource` org_operator or org). `usedBytes` counts what the project (or org)
   * stores now plus what the same request takes before this entry; confirms of uploads
   * already initiated still go through, so a commit never half-succeeds because of it.
   */
  quotaExceeded: (usedBytes: number, requestedBytes: number, quotaBytes: number, quotaSource: string) =>
    new AppError(
      'quota_exceeded',
      `Storing ${requestedBytes} more bytes would pass the ${quotaSource.startsWith('org') ? "organization's" : "project's"} quota: ${usedBytes} of ${quotaBytes} bytes are used (${quotaSource} quota)`,
      { usedBytes, requestedBytes, quotaBytes, quotaSource },
    ),
  rateLimited: (retryAfterSeconds: number) => new AppError('rate_limited', 'Write rate limit exceeded for this project', { retryAfterSeconds }),
  /**
   * Live feeds are held open: one more than `max` per key (or session), or per user of the project
   * over all their keys and sessions, is refused until one of them closes.
   */
  tooManyFeeds: (max: number, per: 'key' | 'user') =>
    new AppError(
      'too_many_feeds',
      per === 'key'
        ? `At most ${max} live event feeds may be open at once per API key (or session) on a gateway; close one first`
        : `At most ${max} live event feeds may be open at once per user of a project on a gateway, over all their keys and sessions; close one first`,
      { max, per, retryAfterSeconds: 5 },
    ),
  /**
   * Failed authentications spend a budget per client address (and per API key); once it is spent,
   * further attempts are refused unexamined until the budget refills.
   */
  tooManyFailedAttempts: (per: 'address' | 'key', retryAfterSeconds: number) =>
    new AppError(
      'too_many_failed_attempts',
      per === 'address'
        ? 'Too many failed authentication attempts from this address; try again after Retry-After seconds'
        : 'Too many failed authentication attempts with this API key; try again after Retry-After seconds',
      { per, retryAfterSeconds },
    ),
  /** Retryable: the dependency is down or restarting, so a client should come back shortly. */
  serviceUnavailable: (service: string) => new AppError('service_unavailable', `Service ${service} is not available`, { retryAfterSeconds: 1 }),
  /**
   * The outcome is unknown: the service may still do, or have done, the work (its process died
   * with the request, or it is slow). Retryable with the same idempotency key, which answers with
   * the first result if there is one.
   */
  timeout: (service: string) => new AppError('timeout', `Service ${service} did not answer in time`, { retryAfterSeconds: 1 }),
  idempotencyKeyReused: () => new AppError('idempotency_key_reused', 'This X-Idempotency-Key was already used with a different request body'),
  idempotencyInProgress: () => new AppError('idempotency_in_progress', 'A request with this X-Idempotency-Key is still being processed; retry shortly'),
  /** Entry-level failures of a batch: all offending entries are named (the first 100) so one retry can fix them all. */
  filesNotFound: (fileIds: readonly string[]) => new AppError('not_found', `${fileIds.length} file(s) not found in this project`, listed('fileIds', fileIds)),
  versionNotConfirmed: (entries: readonly { fileId: string; version: number }[]) =>
    new AppError(
      'version_not_confirmed',
      `${entries.length} version(s) are not confirmed uploads of their file; confirm them first`,
      listed('entries', entries),
    ),
  /** `count`: how many there are, when `entries` holds only the first of them (a draft's, read 100 at most). */
  staleVersion: (entries: readonly { fileId: string; version: number; currentVersion: number }[], count = entries.length) =>
    new AppError(
      'stale_version',
      `${count} version(s) are not newer than the branch's current version; sync and commit a newer version`,
      listed('entries', entries, count),
    ),
  fileNotInBranch: (fileIds: readonly string[], count = fileIds.length) =>
    new AppError('file_not_in_branch', `${count} file(s) to delete are not in the branch`, listed('fileIds', fileIds, count)),
  /** No restore commit is made without a file in it; `skipped` says why, per file. */
  nothingToRestore: (skipped: readonly { fileId: string; toVersion: number; code: string; message: string }[]) =>
    new AppError('nothing_to_restore', `None of the ${skipped.length} file(s) can be restored; see skipped`, { skipped }),
  branchExists: (name: string) => new AppError('branch_exists', `Branch "${name}" already exists`),
  branchProtected: (name: string) => new AppError('branch_protected', `Branch "${name}" cannot be deleted`),
  /** Up to 1,000 conflicts in path order, and how many there are: a client resolves those and asks again. */
  mergeConflict: (conflicts: readonly { fileId: string; path: string }[]) =>
    new AppError('merge_conflict', `${conflicts.length} file(s) changed on both branches since their fork point; resolve them`, {
      conflicts: conflicts.slice(0, 1000),
      count: conflicts.length,
    }),
  nothingToMerge: (source: string, into: string) => new AppError('nothing_to_merge', `Branch "${source}" has nothing that "${into}" does not already have`),
  emptyDraft: () => new AppError('empty_draft', 'The draft has no files staged; stage files before committing it'),
  /**
   * Every locked file, with its holder's note ("" when none); or, given `lockedFileCount` (a draft's
   * commit, fenced page by page), the first of them and how many there are.
   */
  fileLocked: (
    lockedFiles: readonly { fileId: string; path: string; userId: string; userName: string; note: string; lockedAt: string }[],
    lockedFileCount?: number,
  ) =>
    new AppError(
      'file_locked',
      `${lockedFileCount ?? lockedFiles.length} file(s) in this commit are locked by another user`,
      lockedFileCount === undefined ? { lockedFiles } : { lockedFiles, lockedFileCount },
    ),
  /**
   * Read your writes (docs/api.md, Sync): the read model has not applied the project's latest commit
   * (or branch change) yet. secondsBehind: how long it has gone without advancing for the project,
   * null when it holds nothing of it yet.
   */
  syncCatchingUp: (latestCommitSeq: number, appliedSeq: number, secondsBehind: number | null) =>
    new AppError('sync_catching_up', `Sync has applied commits up to ${appliedSeq} of ${latestCommitSeq}; retry shortly`, {
      latestCommitSeq,
      appliedSeq,
      commitsBehind: Math.max(0, latestCommitSeq - appliedSeq),
      secondsBehind: secondsBehind === null ? null : Math.round(secondsBehind * 1000) / 1000,
      retryAfterSeconds: 1,
    }),
  syncSessionIncomplete: (missingBatches: readonly number[]) =>
    new AppError(
      'sync_session_incomplete',
      'Earlier batches of this sync session are unknown (not sent, not finished, or expired); send them first, or sync again with a new session',
      listed('missingBatches', missingBatches),
    ),
  /** The server cannot list changes from the client's point: the client compares its whole workspace instead. */
  changesExpired: (reason: string) =>
    new AppError('changes_expired', `Cannot list changes since this point (${reason}); compare the whole workspace with POST /sync`, { reason }),
  internal: () => new AppError('internal', 'Internal error'),
} as const;

/** How many offending items an error names at most (the first ones); `count` says how many there are. */
export const LISTED_MAX = 100;

function listed<T>(name: string, items: readonly T[], count = items.length): ErrorDetails {
  return { [name]: items.slice(0, LISTED_MAX), count };
}
