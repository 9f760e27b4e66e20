import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeSecretsKey, SecretBox } from './secret-box.ts';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const webhookId = randomUUID();

  it('seals a secret into a versioned form that does not contain it, and opens it again', () => {
    const sealed = box.seal(secret, webhookId);
    expect(sealed).toMatch(/^v1:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, webhookId)).toBe(secret);
    // A fresh IV each time: the same secret never seals to the same value twice.
    expect(box.seal(secret, webhookId)).not.toBe(sealed);
  });

  it('reads a secret stored before encryption as it is', () => {
    expect(box.open(secret, webhookId)).toBe(secret);
  });

  it('refuses a sealed secret under another key, for another webhook, or altered', () => {
    const sealed = box.seal(secret, webhookId);
    expect(() => new SecretBox(randomBytes(32)).open(sealed, webhookId)).toThrow();
    expect(() => box.open(sealed, randomUUID())).toThrow();
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[20] ^= 1;
    expect(() => box.open(`v1:${bytes.toString('base64url')}`, webhookId)).toThrow();
    expect(() => box.open('v1:AAAA', webhookId)).toThrow(/truncated/);
  });
});

describe('decodeSecretsKey', () => {
  it('reads 32 bytes in base64 or base64url', () => {
    const key = randomBytes(32);
    expect(decodeSecretsKey(key.toString('base64'))?.equals(key)).toBe(true);
    expect(decodeSecretsKey(`${key.toString('base64url')}\n`)?.equals(key)).toBe(true);
  });

  it('refuses any other length or alphabet instead of decoding it into another key', () => {
    for (const text of ['', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), 'x'.repeat(32), `${'a'.repeat(42)}!=`, 'a'.repeat(44)]) {
      expect(decodeSecretsKey(text), text).toBeUndefined();
    }
  });
});
