import type { ApiClient } from './client.ts';
import { describeContent } from './client.ts';

export interface PushedFile {
  path: string;
  fileId: string;
  version: number;
  sha256: string;
  size: number;
  dedup: boolean;
}

/** The client side of an upload: initiate, PUT with the required headers verbatim, confirm. */
export async function pushFile(api: ApiClient, projectId: string, filePath: string, bytes: Buffer): Promise<PushedFile> {
  const content = describeContent(bytes);
  const initiated = await api.post(`/api/v1/projects/${projectId}/files/upload/initiate`, { path: filePath, ...content });
  if (initiated.status !== 200) throw new Error(`initiate ${filePath}: ${initiated.status} ${JSON.stringify(initiated.body)}`);
  const { fileId, version, storageKey, uploadUrl, requiredHeaders, dedup } = initiated.body;
  if (!dedup) {
    const put = await fetch(uploadUrl, { method: 'PUT', headers: requiredHeaders, body: bytes });
    if (put.status !== 200) throw new Error(`PUT ${filePath}: ${put.status} ${await put.text()}`);
  }
  const confirmed = await api.post(`/api/v1/projects/${projectId}/files/upload/confirm`, {
    fileId,
    version,
    sha256: content.sha256,
    size: content.size,
    ...(dedup ? { dedup: true } : { storageKey }),
  });
  if (confirmed.status !== 200) throw new Error(`confirm ${filePath}: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return { path: filePath, fileId, version, sha256: content.sha256, size: content.size, dedup: Boolean(dedup) };
}
