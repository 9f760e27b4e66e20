/**
 * The Content-Disposition every download is served with: `attachment`, so a browser saves the bytes
 * an uploader chose instead of rendering them as a page of the store's origin, and, when the file's
 * name is known, that name, so it is saved under it.
 *
 * The name is any path segment a project may hold (any Unicode but `/` and control characters), so
 * it travels twice (RFC 6266): `filename*` percent-encodes its UTF-8 exactly (RFC 8187), and
 * `filename` carries an ASCII fallback for clients that read only that one, every character that is
 * not plain printable ASCII, a quote, a backslash or a percent sign (which some browsers decode)
 * replaced by `_`. Nothing in either can end the parameter or add a header.
 */
export function attachmentDisposition(filename: string | undefined): string {
  if (filename === undefined || filename === '') return 'attachment';
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeAttrChars(filename)}`;
}

/** RFC 8187 attr-char: letters, digits and `!#$&+-.^_\`|~` stay; every other byte is %XX. */
function encodeAttrChars(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The last segment of a project path: the name a download is saved under. */
export function fileNameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
