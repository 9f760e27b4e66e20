import path from 'node:path';
import { z } from 'zod';
import type { BlobStorage } from './storage.ts';
import { LocalBlobStorage } from './local-storage.ts';
import { instrumentStorage } from './instrumented-storage.ts';
import { S3BlobStorage } from './s3-storage.ts';

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

/**
 * Storage settings, shared by the upload service (signs, checks, deletes) and the gateway (serves
 * local-driver URLs). Setting S3_BUCKET selects the S3 driver; otherwise blobs live on local disk.
 */
export const storageSettings = {
  LODE_DATA_DIR: z.string().default('./.lode'),
  /** HMAC key for local-driver URLs; the gateway and the upload service must share it. */
  LODE_STORAGE_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Where clients reach the gateway; local-driver URLs point there (localPublicUrl when unset). */
  LODE_PUBLIC_URL: z.url().optional(),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .optional(),
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: flag.default(false),
  S3_CREATE_BUCKET: flag.default(false),
};

export interface StorageSettings {
  LODE_DATA_DIR: string;
  LODE_STORAGE_SECRET?: string | undefined;
  LODE_PUBLIC_URL?: string | undefined;
  S3_BUCKET?: string | undefined;
  S3_ENDPOINT?: string | undefined;
  S3_REGION: string;
  S3_ACCESS_KEY_ID?: string | undefined;
  S3_SECRET_ACCESS_KEY?: string | undefined;
  S3_FORCE_PATH_STYLE: boolean;
  S3_CREATE_BUCKET: boolean;
}

export function localStorageDir(dataDir: string): string {
  return path.resolve(dataDir, 'blobs');
}

export function usesS3(settings: StorageSettings): boolean {
  return settings.S3_BUCKET !== undefined;
}

/** The gateway's port when its PORT is not set. */
export const DEFAULT_GATEWAY_PORT = 8080;

/**
 * Where local-driver URLs point: LODE_PUBLIC_URL, else the gateway on this machine, at `gatewayPort`.
 * Only the gateway's process knows its PORT; a service signing URLs in a process of its own assumes
 * the default, so a gateway elsewhere or on another port needs LODE_PUBLIC_URL.
 */
export function localPublicUrl(settings: Pick<StorageSettings, 'LODE_PUBLIC_URL'>, gatewayPort = DEFAULT_GATEWAY_PORT): string {
  return settings.LODE_PUBLIC_URL ?? `http://localhost:${gatewayPort}`;
}

/** `secret` when LODE_STORAGE_SECRET is not set (the embedded process keeps one); `gatewayPort` as for localPublicUrl. */
export interface LocalStorageFallbacks {
  secret?: string;
  gatewayPort?: number;
}

export function createLocalStorage(settings: StorageSettings, fallbacks: LocalStorageFallbacks = {}): LocalBlobStorage {
  const secret = settings.LODE_STORAGE_SECRET ?? fallbacks.secret;
  if (!secret) throw new Error('LODE_STORAGE_SECRET must be set so the gateway can verify the URLs the upload service signs');
  return new LocalBlobStorage({
    dir: localStorageDir(settings.LODE_DATA_DIR),
    secret,
    publicUrl: localPublicUrl(settings, fallbacks.gatewayPort),
  });
}

export function createS3Storage(settings: StorageSettings): S3BlobStorage {
  if (!settings.S3_BUCKET || !settings.S3_ACCESS_KEY_ID || !settings.S3_SECRET_ACCESS_KEY) {
    throw new Error('S3 storage needs S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  }
  return new S3BlobStorage({
    endpoint: settings.S3_ENDPOINT,
    region: settings.S3_REGION,
    bucket: settings.S3_BUCKET,
    accessKeyId: settings.S3_ACCESS_KEY_ID,
    secretAccessKey: settings.S3_SECRET_ACCESS_KEY,
    forcePathStyle: settings.S3_FORCE_PATH_STYLE,
    createBucket: settings.S3_CREATE_BUCKET,
  });
}

export function createStorage(settings: StorageSettings, fallbacks: LocalStorageFallbacks = {}): BlobStorage {
  return instrumentStorage(usesS3(settings) ? createS3Storage(settings) : createLocalStorage(settings, fallbacks));
}
