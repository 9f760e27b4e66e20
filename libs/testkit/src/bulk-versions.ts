import { createHash, randomUUID } from 'node:crypto';

export interface BulkVersion {
  fileId: string;
  path: string;
  version: number;
  sha256: string;
  size: number;
  storageKey: string;
}

/**
 * The bytes a seeded version stands for: its path. Its recorded sha256 and size are those of these
 * bytes, so writeBulkBlobs can put honest objects behind the versions when a test needs them.
 */
export function bulkContent(version: BulkVersion): Buffer {
  return Buffer.from(version.path);
}

/**
 * First versions of `count` new files under `prefix`, for a test or benchmark to seed in bulk. The
 * storage keys point at no object until writeBulkBlobs stores them.
 */
export function bulkVersions(projectId: string, count: number, prefix = `bulk-${randomUUID().slice(0, 8)}`): BulkVersion[] {
  return Array.from({ length: count }, (_, i): BulkVersion => {
    const path = `${prefix}/file-${String(i).padStart(6, '0')}.bin`;
    const fileId = randomUUID();
    return {
      fileId,
      path,
      version: 1,
      sha256: createHash('sha256').update(path).digest('hex'),
      size: Buffer.byteLength(path),
      storageKey: `p/${projectId}/bulk/${fileId}`,
    };
  });
}
