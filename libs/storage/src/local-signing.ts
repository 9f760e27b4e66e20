import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What a local presigned URL binds: method, key, expiry and, for PUT, the exact length, MD5 and
 * SHA-256 of the body (a part of a multipart upload: length and MD5 only, and its upload and part
 * number); for GET, the name the download is saved under, if it has one. Changing any of them (or
 * the URL) invalidates the signature.
 */
export interface SignedFields {
  method: 'PUT' | 'GET';
  key: string;
  expires: number;
  contentLength?: string;
  contentMd5?: string;
  sha256?: string;
  filename?: string | undefined;
  /** A part's upload id and part number (partField): the URL then writes only that part. */
  part?: string | undefined;
}

/** What a part URL signs of the part it writes; a whole object's signature never covers such a line. */
export function partField(uploadId: string, partNumber: string): string {
  return `part ${uploadId} ${partNumber}`;
}

export function sign(secret: string, f: SignedFields): string {
  // The name and the part are appended only when there is one: URLs signed before either was stay valid.
  const fields = [f.method, f.key, f.expires, f.contentLength ?? '', f.contentMd5 ?? '', f.sha256 ?? ''];
  const canonical = [...fields, ...(f.filename === undefined ? [] : [f.filename]), ...(f.part === undefined ? [] : [f.part])].join('\n');
  return createHmac('sha256', secret).update(canonical).digest('base64url');
}

export function verify(secret: string, f: SignedFields, signature: string): boolean {
  const expected = Buffer.from(sign(secret, f));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
