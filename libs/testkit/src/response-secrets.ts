import { recordSecret } from './test-logs.ts';

/** An API key as identity makes them (services/identity/src/domain/api-key.ts): `lode_` and 40 base62 characters. */
const API_KEY = /lode_[0-9A-Za-z]{40}(?![0-9A-Za-z])/g;
/** Body fields whose string value is a secret: `key` (an API key), `token`, `csrfToken`, `secret` (a webhook's), a password. */
const SECRET_FIELD = /^(key|apiKey)$|token$|secret$|password$/i;
/** URL parameters (query or fragment) that grant access: a sign-in link's token, a signed URL's signature. */
const SECRET_PARAMETERS = ['token', 'signature', 'X-Amz-Signature'];

/**
 * Records every secret a response hands the test: API keys wherever they appear, string fields
 * named like a secret, the tokens and signatures inside URLs (sign-in links, signed object URLs),
 * and the values of the cookies it sets (the session and CSRF cookies).
 */
export function recordResponseSecrets(text: string, body: unknown, headers: Headers): void {
  for (const [key] of text.matchAll(API_KEY)) recordSecret('api key', key);
  if (typeof body === 'object' && body !== null) recordFields(body, 0);
  for (const cookie of headers.getSetCookie()) {
    const pair = cookie.split(';', 1)[0];
    const equals = pair.indexOf('=');
    if (equals > 0) recordSecret(`cookie ${pair.slice(0, equals).trim()}`, pair.slice(equals + 1).trim());
  }
}

/** Deep enough for every reply of the API (a list of webhooks, a key inside `data`). */
const MAX_DEPTH = 6;

function recordFields(value: object, depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const [name, field] of Object.entries(value)) {
    if (typeof field === 'string') {
      if (SECRET_FIELD.test(name)) recordSecret(name, field);
      if (/^https?:\/\//.test(field)) recordUrlSecrets(name, field);
    } else if (typeof field === 'object' && field !== null) {
      recordFields(field, depth + 1);
    }
  }
}

function recordUrlSecrets(name: string, url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  const parameters = [parsed.searchParams, new URLSearchParams(parsed.hash.slice(1))];
  for (const parameter of SECRET_PARAMETERS) {
    for (const found of parameters) {
      const value = found.get(parameter);
      if (value) recordSecret(`${parameter} in ${name}`, value);
    }
  }
}
