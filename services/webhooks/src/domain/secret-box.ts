import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Webhook secrets at rest: AES-256-GCM under the operator's key (LODE_SECRETS_KEY), so a copy of the
 * database (a backup, a replica, a read-only role) does not hand over every project's signing
 * secret. Signing needs the secret itself, so it is encrypted, not hashed.
 *
 * Stored form: `v1:` and the base64url of a fresh 12-byte IV, the ciphertext and the 16-byte tag. The
 * webhook's id is the associated data: a sealed secret copied onto another webhook's row does not
 * open there. Secrets stored before encryption (`whsec_…`) are read as they are until the service
 * has sealed them at start (stored-secrets.ts); the prefix tells the two apart.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`A secrets key is ${KEY_BYTES} bytes, not ${key.length}`);
    this.#key = key;
  }

  seal(secret: string, webhookId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, iv).setAAD(Buffer.from(webhookId));
    const sealed = Buffer.concat([iv, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${SEALED_PREFIX}${sealed.toString('base64url')}`;
  }

  /** The secret a stored value holds; throws if it was sealed under another key or for another webhook, or altered. */
  open(stored: string, webhookId: string): string {
    if (!isSealed(stored)) return stored;
    const sealed = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url');
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error(`The stored secret of webhook ${webhookId} is truncated`);
    const decipher = createDecipheriv(ALGORITHM, this.#key, sealed.subarray(0, IV_BYTES)).setAAD(Buffer.from(webhookId));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

export const SEALED_PREFIX = 'v1:';

export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * LODE_SECRETS_KEY as given: 32 bytes in base64 (`openssl rand -base64 32`) or base64url (the
 * embedded mode's generated key), nothing else: Node's decoder skips what is not base64, so a value
 * that only looks right is refused here rather than decoded into another key.
 */
export function decodeSecretsKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed, 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}
