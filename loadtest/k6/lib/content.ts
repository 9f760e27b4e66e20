import { md5, randomBytes, sha256 } from 'k6/crypto';

/** File content with the digests the upload API asks for: hex SHA-256 and base64 MD5 of the bytes sent. */
export interface Content {
  body: ArrayBuffer | string;
  size: number;
  sha256: string;
  md5: string;
}

function digested(body: ArrayBuffer | string, size: number): Content {
  return { body, size, sha256: sha256(body, 'hex'), md5: md5(body, 'base64') };
}

/** Fresh random bytes: never deduplicated, so every push really moves its bytes to storage. */
export function randomContent(size: number): Content {
  return digested(randomBytes(size), size);
}

/**
 * ASCII content derived from a label (padded to `size`, never shorter than the label so two labels
 * never collide), so every VU can rebuild a seeded workspace's hashes without setup data carrying them.
 */
export function labelledContent(label: string, size: number): Content {
  const body = `${label}\n`.padEnd(size, '.');
  return digested(body, body.length);
}
