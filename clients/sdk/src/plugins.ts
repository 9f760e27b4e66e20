import type { LodeClient } from './client.ts';
import { hashFile } from './hash.ts';
import { putFile } from './transfer.ts';
import type { PluginVersion } from './types.ts';

export interface PluginRelease {
  /** Semver as semver.org writes it: `1.4.0`, `2.0.0-rc.1`. */
  version: string;
  /** The package's bytes on disk. */
  filePath: string;
  description?: string;
  signal?: AbortSignal;
}

/**
 * Publishes a version of an organization's shared plugin (org owners and admins): initiate, PUT the
 * bytes to the presigned URL, confirm, which the server checks against the SHA-256 computed here.
 */
export async function publishPlugin(client: LodeClient, name: string, release: PluginRelease): Promise<PluginVersion> {
  const { version, signal } = release;
  const digest = await hashFile(release.filePath, signal);
  const form = await client.initiatePluginVersion(
    name,
    { version, sha256: digest.sha256, size: digest.size, contentMd5: digest.md5, description: release.description },
    { signal },
  );
  await putFile(`${name}@${version}`, form.uploadUrl, form.requiredHeaders, release.filePath, { retry: client.transport.retry, signal });
  return client.confirmPluginVersion(name, { version, storageKey: form.storageKey, sha256: digest.sha256, size: digest.size }, { signal });
}
