import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export interface ContentDigest {
  size: number;
  /** Hex SHA-256, as the API names content. */
  sha256: string;
  /** Base64 MD5, as `Content-MD5` carries it. */
  md5: string;
}

/** SHA-256 and MD5 of a file in one streaming read: memory stays flat whatever its size. */
export async function hashFile(filePath: string, signal?: AbortSignal): Promise<ContentDigest> {
  const sha256 = createHash('sha256');
  const md5 = createHash('md5');
  let size = 0;
  for await (const piece of createReadStream(filePath, { highWaterMark: 1024 * 1024, signal })) {
    const bytes = piece as Buffer;
    sha256.update(bytes);
    md5.update(bytes);
    size += bytes.length;
  }
  return { size, sha256: sha256.digest('hex'), md5: md5.digest('base64') };
}
