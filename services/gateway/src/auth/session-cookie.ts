import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { errors } from '@lode/errors';
import { sessions } from '@lode/contracts';

export const SESSION_COOKIE = 'lode_session';
/** Where the dashboard's scripts find the CSRF token between page loads; the gateway never reads it. */
export const CSRF_COOKIE = 'lode_csrf';
export const CSRF_HEADER = 'x-csrf-token';
/** The browser keeps the cookie this long; the identity service ends an idle session much sooner. */
const COOKIE_MAX_AGE_S = 30 * 24 * 3600;

/** A cookie's value when it matches its pattern (our values need no decoding), else undefined. */
export function readCookie(req: Request, cookie: string, pattern: RegExp): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0 || part.slice(0, separator).trim() !== cookie) continue;
    const value = part.slice(separator + 1).trim();
    if (pattern.test(value)) return value;
  }
  return undefined;
}

/** The session token from the Cookie header, or undefined when there is none of the right shape. */
export function sessionToken(req: Request): string | undefined {
  return readCookie(req, SESSION_COOKIE, sessions.TOKEN_PATTERN);
}

/**
 * `; Secure` when the browser came over https: directly, or through a proxy the app trusts
 * ('trust proxy', LODE_TRUST_PROXY) saying so in X-Forwarded-Proto. On plain http (localhost,
 * tests) a Secure cookie would never be sent back, so it is left off there.
 */
export function secureAttribute(req: Request): string {
  return req.secure ? '; Secure' : '';
}

/**
 * A new session's two cookies, the only time the browser is given its tokens. The session cookie is
 * httpOnly so page scripts never read it; SameSite=Lax so other sites' requests do not carry it on
 * writes. The CSRF cookie is for the dashboard's own scripts to read and echo in X-CSRF-Token: the
 * service keeps only its hash, so no later answer can hand it out again, and another site can
 * neither read it nor make the browser send it as a header.
 */
export function setSessionCookies(req: Request, res: Response, session: { token: string; csrfToken: string }): void {
  res.append('Set-Cookie', `${SESSION_COOKIE}=${session.token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${COOKIE_MAX_AGE_S}${secureAttribute(req)}`);
  res.append('Set-Cookie', `${CSRF_COOKIE}=${session.csrfToken}; Path=/; SameSite=Lax; Max-Age=${COOKIE_MAX_AGE_S}${secureAttribute(req)}`);
}

export function clearSessionCookies(req: Request, res: Response): void {
  res.append('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secureAttribute(req)}`);
  res.append('Set-Cookie', `${CSRF_COOKIE}=; Path=/; SameSite=Lax; Max-Age=0${secureAttribute(req)}`);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a call with the cookie must send the CSRF token (a method that changes state); 403 without it. */
export function needsCsrfToken(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/**
 * Every state-changing call made with the cookie must echo the session's CSRF token in X-CSRF-Token:
 * another site can make the browser send the cookie, but cannot read the token to send with it.
 * Only the token's SHA-256 is known here (`csrfTokenHash`, hex): the header's hash is compared with
 * it in constant time.
 */
export function checkCsrf(req: Request, csrfTokenHash: string): void {
  if (!needsCsrfToken(req.method)) return;
  const given = createHash('sha256')
    .update(req.get(CSRF_HEADER) ?? '')
    .digest();
  if (!timingSafeEqual(given, Buffer.from(csrfTokenHash, 'hex'))) {
    throw errors.forbidden(`Missing or wrong X-CSRF-Token: send the token the sign-in answered (also in the ${CSRF_COOKIE} cookie)`);
  }
}
