import { SERVICE_NAMES } from '@lode/system/names';

/** What the image's SERVICE variable may name: the gateway, every service of the registry, and the migration job. */
export const IMAGE_SERVICES = ['gateway', ...SERVICE_NAMES, 'migrate'] as const;
export type ImageService = (typeof IMAGE_SERVICES)[number];

export function isImageService(value: string | undefined): value is ImageService {
  return (IMAGE_SERVICES as readonly (string | undefined)[]).includes(value);
}
