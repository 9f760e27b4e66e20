import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { lfsCredentials } from './lfs-credentials.ts';

const request = (headers: Record<string, string>) => ({ get: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('Git LFS credentials', () => {
  it('read the key from the Basic password and the device from its user name', () => {
    expect(lfsCredentials(request({ authorization: basic('studio-pc-7', 'lode_abc') }))).toEqual({ authorization: 'Bearer lode_abc', deviceId: 'studio-pc-7' });
  });

  it('keep a password that holds colons whole', () => {
    expect(lfsCredentials(request({ authorization: basic('pc', 'lode_a:b') })).authorization).toBe('Bearer lode_a:b');
  });

  it('let X-Device-Id name the device over the user name', () => {
    expect(lfsCredentials(request({ authorization: basic('alice', 'lode_abc'), 'x-device-id': 'pc-1' })).deviceId).toBe('pc-1');
  });

  it('read a device sent twice (an action header and an extra header) as one', () => {
    expect(lfsCredentials(request({ authorization: 'Bearer lode_abc', 'x-device-id': 'pc-1, pc-1' })).deviceId).toBe('pc-1');
    expect(lfsCredentials(request({ authorization: 'Bearer lode_abc', 'x-device-id': 'pc-1, pc-2' })).deviceId).toBe('pc-1, pc-2');
  });

  it('pass a Bearer header through with X-Device-Id', () => {
    expect(lfsCredentials(request({ authorization: 'Bearer lode_abc', 'x-device-id': 'pc-1' }))).toEqual({
      authorization: 'Bearer lode_abc',
      deviceId: 'pc-1',
    });
  });

  it('find no key in a Basic pair with an empty password, and no device in an empty user name', () => {
    expect(lfsCredentials(request({ authorization: basic('pc', '') })).authorization).toBeUndefined();
    expect(lfsCredentials(request({ authorization: basic('', 'lode_abc') }))).toEqual({ authorization: 'Bearer lode_abc', deviceId: undefined });
  });

  it('find none when nothing was sent', () => {
    expect(lfsCredentials(request({}))).toEqual({ authorization: undefined, deviceId: undefined });
  });
});
