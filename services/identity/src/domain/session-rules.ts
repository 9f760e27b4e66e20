import { randomBytes } from 'node:crypto';

/** A sign-in link is valid 15 minutes and usable once: a leaked link soon stops working. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;

/** 256 random bits as 43 base64url characters: sign-in links, session cookies and CSRF tokens alike (each stored as its SHA-256 only). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface OidcClaims {
  email: string | null;
  emailVerified: boolean;
}

/** Only an address the provider verified may link a person to an admin-made user (else anyone could claim one). */
export function linkableEmail(claims: OidcClaims): string | null {
  return claims.emailVerified && claims.email ? claims.email : null;
}

/** A session unused this long has ended: the next call is 401 and the person signs in again. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;

/**
 * A session this old has ended however busy it was, so a stolen cookie kept in use is not good
 * forever: the person signs in again at least this often.
 */
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60_000;

/** When a session ends on its own: after `idleMs` without a call, or `maxAgeMs` after sign-in, whichever comes first. */
export interface SessionLifetime {
  idleMs: number;
  maxAgeMs: number;
}
