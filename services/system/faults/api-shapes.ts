/** The parts of the API's answers (docs/api.md) the fault suite reads. */

export interface InitiateResult {
  path: string;
  fileId?: string;
  version: number;
  storageKey?: string;
  uploadUrl?: string;
  requiredHeaders?: Record<string, string>;
  dedup?: boolean;
  code?: string;
}

export interface ConfirmAnswer {
  version: number;
}

export interface CommitAnswer {
  id: string;
  sequenceNum: number;
}

export interface RestoreAnswer {
  commitId: string;
  sequenceNum: number;
  restored: { fileId: string; newVersion: number }[];
  skipped: unknown[];
}

export interface LockAnswer {
  acquired: { fileId: string }[];
  conflicts: unknown[];
  notFound: string[];
}

export interface UnlockAnswer {
  released: { fileId: string }[];
  notReleased: { fileId: string; reason: string }[];
}

export interface LockPage {
  data: { fileId: string; userId: string }[];
  nextCursor: string | null;
}

export interface SyncRow {
  fileId: string;
  remoteVersion: number;
  remoteSha256: string;
  remoteCommitSeq: number;
}

export interface SyncAnswer {
  files: SyncRow[];
  latestCommitSeq: number;
}

export interface VersionsPage {
  data: { version: number; commitId: string }[];
  nextCursor: string | null;
}

export interface ErrorAnswer {
  code: string;
  message: string;
}
