import { randomInt } from 'node:crypto';

export const KEY_PREFIX = 'lode_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 40; // 40 base62 characters ≈ 238 bits of entropy

/** A new key: shown once to its owner, stored only as its SHA-256 (apiKeyHash). */
export function generateApiKey(): string {
  let body = '';
  for (let i = 0; i < KEY_BODY_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return KEY_PREFIX + body;
}

/** The last four characters, kept to tell keys apart in lists. */
export function keyHint(key: string): string {
  return key.slice(-4);
}
