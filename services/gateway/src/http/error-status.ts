import type { ErrorCode } from '@lode/errors';

/**
 * The one table from domain error codes to HTTP statuses. Services never choose a status; a new
 * code fails the typecheck here until it is given one.
 */
export const statusByCode: Record<ErrorCode, number> = {
  validation_failed: 400,
  invalid_json: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  file_too_large: 413,
  batch_too_large: 413,
  not_found: 404,
  route_not_found: 404,
  missing_key: 401,
  invalid_key: 401,
  key_revoked: 401,
  unauthorized: 401,
  device_mismatch: 403,
  forbidden: 403,
  conflict: 409,
  slug_taken: 409,
  path_case_conflict: 409,
  version_conflict: 409,
  upload_incomplete: 409,
  file_locked: 409,
  version_not_confirmed: 409,
  stale_version: 409,
  file_not_in_branch: 409,
  idempotency_in_progress: 409,
  sync_session_incomplete: 409,
  content_mismatch: 422,
  idempotency_key_reused: 422,
  nothing_to_restore: 422,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
  sync_catching_up: 503,
  timeout: 504,
};
