import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLocalStorage, localPublicUrl, storageSettings } from './config.ts';

const settings = (env: Record<string, string>) =>
  z.object(storageSettings).parse({ LODE_DATA_DIR: '/tmp/lode-config-test', LODE_STORAGE_SECRET: 's'.repeat(40), ...env });

describe('where local-driver URLs point', () => {
  it('is LODE_PUBLIC_URL when set, whatever port the gateway listens on', () => {
    expect(localPublicUrl(settings({ LODE_PUBLIC_URL: 'https://lode.example.com' }), 9000)).toBe('https://lode.example.com');
  });

  it("is otherwise the gateway on this machine: at its PORT where known, else at the gateway's default port", () => {
    expect(localPublicUrl(settings({}), 9000)).toBe('http://localhost:9000');
    expect(localPublicUrl(settings({}))).toBe('http://localhost:8080');
  });

  it('is what the local driver signs its URLs with', async () => {
    const storage = createLocalStorage(settings({}), { gatewayPort: 9000 });
    const url = await storage.presignGet({ key: 'p/x/u/y', expiresInSeconds: 60 });
    expect(url).toMatch(/^http:\/\/localhost:9000\/storage\/v1\/objects\/p\/x\/u\/y\?/);
  });
});
