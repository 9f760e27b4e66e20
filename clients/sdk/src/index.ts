export { LodeClient, allPages, paginate, type LodeClientOptions } from './client.ts';
export { LodeAdminClient, type LodeAdminClientOptions } from './admin.ts';
export type * from './admin-types.ts';
export { ApiTransport, type CallOptions, type ConnectionOptions, type RetryEvent } from './http.ts';
export { isRefusal, LodeApiError, LodeNetworkError, LodeTransferError, type FileFailure } from './errors.ts';
export { DEFAULT_RETRY, isRetryableStatus, retryDelayMs, type RetryPolicy } from './retry.ts';
export { hashFile, sha256OfFile, type ContentDigest, type HashOptions, type PartDigests, type WholeDigest } from './hash.ts';
export { chunk, createLimiter, mapLimit, runAll } from './limit.ts';
export {
  DEFAULT_MULTIPART_THRESHOLD,
  DEFAULT_PARTS_IN_FLIGHT,
  MAX_PARTS,
  MAX_SINGLE_PUT,
  movesInParts,
  partCount,
  partSizeFor,
  rangeSizeFor,
} from './parts.ts';
export { multipartEntry, putParts, type MultipartOptions, type PartsOutcome } from './multipart-upload.ts';
export { downloadInRanges, resumablePaths, type RangedOptions, type RangedOutcome } from './ranged-download.ts';
export {
  uploadFiles,
  MAX_BATCH,
  type FlowOptions,
  type FlowProgress,
  type FlowResult,
  type LocalFile,
  type UploadedFile,
  type UploadOptions,
} from './upload.ts';
export { downloadFiles, type DownloadTarget, type DownloadedFile } from './download.ts';
export { commitFiles, MAX_COMMIT_ENTRIES, type CommitOptions } from './commit.ts';
export { followEvents, type FeedMessage, type FeedOptions } from './events.ts';
export { publishPlugin, type PluginRelease } from './plugins.ts';
export { hasUnpairedSurrogate, pathProblem } from './paths.ts';
export { putFile, downloadToFile, isPartialDownload, isResumablePartial, type ByteRange, type PutOptions, type TransferOptions } from './transfer.ts';
export * from './types.ts';
