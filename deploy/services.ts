import { SERVICE_NAMES } from '@lode/system/names';

/** What the image's SERVICE variable may name: the gateway, every service of the registry, and the migration job. */
export const IMAGE_SERVICES = ['gateway', ...SERVICE_NAMES, 'migrate'] as const;
export type ImageService = (typeof IMAGE_SERVICES)[number];

export function isImageService(value: string | undefined): value is ImageService {
  return (IMAGE_SERVICES as readonly (string | undefined)[]).includes(value);
}

/**
 * The URL of the module that runs it: the gateway and the migration job have their own; every
 * service of the registry runs from the one service entry, which reads SERVICE itself.
 */
export function entryOf(service: ImageService): string {
  const file = service === 'gateway' || service === 'migrate' ? `../services/${service}/src/main.ts` : '../services/system/src/service-main.ts';
  return new URL(file, import.meta.url).href;
}
