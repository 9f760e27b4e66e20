import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { errors } from '@lode/errors';

/**
 * Opaque keyset cursors: the last row's sort key, base64url JSON, with an HMAC so a client can
 * neither forge nor edit one. A bad cursor is the client's error (400), never a 500.
 */
export class CursorCodec {
  readonly #secret: string;

  constructor(secret: string) {
    this.#secret = secret;
  }

  encode(position: readonly (string | number)[]): string {
    const body = Buffer.from(JSON.stringify(position)).toString('base64url');
    return `${body}.${this.#mac(body)}`;
  }

  decode(cursor: string): (string | number)[] {
    const parts = cursor.split('.');
    const [body, mac] = parts;
    if (parts.length !== 2 || !body || !mac) throw errors.validation('Invalid cursor');
    const expected = Buffer.from(this.#mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw errors.validation('Invalid cursor');
    let position: unknown;
    try {
      position = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw errors.validation('Invalid cursor');
    }
    if (!Array.isArray(position)) throw errors.validation('Invalid cursor');
    return position as (string | number)[];
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#secret).update(body).digest('base64url').slice(0, 22);
  }
}

/** Signs pagination cursors; every replica of a service must share it. The embedded mode keeps one in its data directory. */
export const cursorSecretSetting = {
  LODE_CURSOR_SECRET: z.string().min(32, 'must be at least 32 characters'),
};
