import type { Request } from 'express';

/**
 * Where people reach this gateway, for the URLs it hands out to browsers (sign-in links, the OpenID
 * Connect redirect): LODE_PUBLIC_URL when set, else the request's own scheme and host, which behind
 * a trusted proxy ('trust proxy', LODE_TRUST_PROXY) are X-Forwarded-Proto and -Host. No trailing slash.
 */
export function publicOrigin(req: Request, publicUrl: string | undefined): string {
  return (publicUrl ?? `${req.protocol}://${req.host}`).replace(/\/+$/, '');
}
