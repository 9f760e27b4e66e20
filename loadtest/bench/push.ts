import { mapConcurrently } from '@lode/storage';
import { upload } from '@lode/contracts';
import { describeContent, type BulkVersion } from '@lode/testkit';
import type { HttpClient, JsonApi } from './client.ts';

export interface LocalFile {
  path: string;
  bytes: Buffer;
}

/** A file initiated and its bytes stored: what its confirm sends, and the version it becomes. */
export interface UploadedFile {
  confirm: { fileId: string; version: number; sha256: string; size: number; storageKey?: string; dedup?: true };
  version: BulkVersion;
}

type Initiated = { file: LocalFile & { content: ReturnType<typeof describeContent> }; result: upload.InitiateResult };

/** initiate-batch per 1,000 files, the results paired with their files. */
async function initiateAll(api: JsonApi, projectId: string, files: readonly LocalFile[]): Promise<Initiated[]> {
  const described = files.map((f) => ({ ...f, content: describeContent(f.bytes) }));
  const initiated: Initiated[] = [];
  for (let i = 0; i < described.length; i += upload.MAX_INITIATE_BATCH) {
    const batch = described.slice(i, i + upload.MAX_INITIATE_BATCH);
    const { results } = await api.call<{ results: upload.InitiateResult[] }>('POST', `/api/v1/projects/${projectId}/files/upload/initiate-batch`, 200, {
      files: batch.map((f) => ({ path: f.path, ...f.content })),
    });
    results.forEach((result, j) => initiated.push({ file: batch[j], result }));
  }
  return initiated;
}

/** The PUT of a file's bytes to its presigned URL, headers verbatim (none for a dedup); its confirm body. */
async function store(http: HttpClient, { file, result }: Initiated): Promise<UploadedFile> {
  if ('error' in result) throw new Error(`initiate ${result.path}: ${result.code} ${result.error}`);
  // The bench's entries never ask for parts, so every answer is a single PUT's or a dedup.
  if ('multipart' in result) throw new Error(`initiate ${result.path}: answered in parts, which no entry asked for`);
  const { sha256, size } = file.content;
  const storageKey = 'dedup' in result ? undefined : result.storageKey;
  if (!('dedup' in result)) {
    const put = await http.request(new URL(result.uploadUrl), 'PUT', result.requiredHeaders, file.bytes);
    if (put.status !== 200) throw new Error(`PUT ${file.path}: ${put.status} ${put.body.toString('utf8', 0, 300)}`);
  }
  return {
    confirm: { fileId: result.fileId, version: result.version, sha256, size, ...(storageKey === undefined ? { dedup: true as const } : { storageKey }) },
    version: { fileId: result.fileId, path: file.path, version: result.version, sha256, size, storageKey: storageKey ?? '' },
  };
}

/** Initiates and stores the files, `inFlight` PUTs at a time, confirming none: ready for a confirm-batch. */
export async function uploadFiles(api: JsonApi, http: HttpClient, projectId: string, files: readonly LocalFile[], inFlight: number): Promise<UploadedFile[]> {
  return mapConcurrently(await initiateAll(api, projectId, files), inFlight, (initiated) => store(http, initiated));
}

/**
 * A client's push, without the commit: initiate-batch per 1,000 files, then for each
 * file the PUT of its bytes to the presigned URL (headers verbatim) and its confirm, `inFlight` files
 * at a time. Returns the confirmed versions, ready to commit.
 */
export async function pushFiles(api: JsonApi, http: HttpClient, projectId: string, files: readonly LocalFile[], inFlight: number): Promise<BulkVersion[]> {
  return mapConcurrently(await initiateAll(api, projectId, files), inFlight, async (initiated): Promise<BulkVersion> => {
    const uploaded = await store(http, initiated);
    await api.call('POST', `/api/v1/projects/${projectId}/files/upload/confirm`, 200, uploaded.confirm);
    return uploaded.version;
  });
}

/** The commit that makes pushed or seeded versions visible: one `add` per file. */
export function addAll(versions: readonly BulkVersion[], message = 'bench'): object {
  return { message, fileVersions: versions.map((v) => ({ fileId: v.fileId, version: v.version, action: 'add' })) };
}
