import type { Request } from 'express';

export interface LfsCredentials {
  /** As the key authenticator reads it: `Bearer <key>`, or undefined when none was sent. */
  authorization: string | undefined;
  deviceId: string | undefined;
}

/**
 * The key and device of a Git LFS request, as git-lfs sends them: HTTP Basic with the device id as
 * the user name and the key as the password (the pair git's credential helpers store), or
 * `Authorization: Bearer <key>` set through http.extraHeader. X-Device-Id, when sent, names the
 * device either way, so a team that sets both headers keeps one setting for Lode's CLI and git.
 */
export function lfsCredentials(req: Request): LfsCredentials {
  const header = req.get('authorization');
  const headerDevice = oneDevice(req.get('x-device-id'));
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '')?.[1];
  if (basic === undefined) return { authorization: header, deviceId: headerDevice };
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? '' : decoded.slice(0, colon);
  const password = colon < 0 ? decoded : decoded.slice(colon + 1);
  return {
    authorization: password === '' ? undefined : `Bearer ${password}`,
    deviceId: headerDevice ?? (user === '' ? undefined : user),
  };
}

/**
 * git-lfs sends a verify action's headers and then its http.extraHeader settings on top, so a device
 * set both ways arrives twice, which Node joins with commas: copies of one id are that id.
 */
function oneDevice(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const copies = new Set(header.split(/,\s*/));
  return copies.size === 1 ? [...copies][0] : header;
}
