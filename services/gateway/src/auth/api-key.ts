import { createHash, randomInt } from 'node:crypto';

export const KEY_PREFIX = 'lode_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 40; // 40 base62 characters ≈ 238 bits of entropy
const KEY_PATTERN = /^lode_[0-9A-Za-z]{32,128}$/;

/** A new key: shown once to its owner, stored only as its SHA-256. */
export function generateApiKey(): string {
  let body = '';
  for (let i = 0; i < KEY_BODY_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return KEY_PREFIX + body;
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** Cheap shape check so that garbage never costs a cache slot or a database query. */
export function looksLikeApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined for anything else. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
}
