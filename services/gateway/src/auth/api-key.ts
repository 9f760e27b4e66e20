const KEY_PATTERN = /^lode_[0-9A-Za-z]{32,128}$/;

/** Cheap shape check so that garbage never costs a cache slot or a bus call. */
export function looksLikeApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined for anything else. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
}
