import path from 'node:path';
import { z } from 'zod';
import type { BlobStorage } from './storage.ts';
import { LocalBlobStorage } from './local-storage.ts';

/** Storage settings, shared by the upload service (signs) and the gateway (serves local URLs). */
export const storageSettings = {
  LODE_DATA_DIR: z.string().default('./.lode'),
  /** HMAC key for local-driver URLs; the gateway and the upload service must share it. */
  LODE_STORAGE_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Where clients reach the gateway; local-driver URLs point there. */
  LODE_PUBLIC_URL: z.url().optional(),
};

export type StorageSettings = { LODE_DATA_DIR: string; LODE_STORAGE_SECRET?: string | undefined; LODE_PUBLIC_URL?: string | undefined };

export function localStorageDir(dataDir: string): string {
  return path.resolve(dataDir, 'blobs');
}

export function createLocalStorage(settings: StorageSettings, fallback: { secret?: string; publicUrl: string }): LocalBlobStorage {
  const secret = settings.LODE_STORAGE_SECRET ?? fallback.secret;
  if (!secret) throw new Error('LODE_STORAGE_SECRET must be set so the gateway can verify the URLs the upload service signs');
  return new LocalBlobStorage({
    dir: localStorageDir(settings.LODE_DATA_DIR),
    secret,
    publicUrl: settings.LODE_PUBLIC_URL ?? fallback.publicUrl,
  });
}

export function createStorage(settings: StorageSettings, fallback: { secret?: string; publicUrl: string }): BlobStorage {
  return createLocalStorage(settings, fallback);
}
