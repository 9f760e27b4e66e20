/** What the image's SERVICE variable may name: each runs services/<name>/src/main.ts. */
export const IMAGE_SERVICES = ['gateway', 'upload', 'commit', 'lock', 'sync', 'restore', 'migrate'] as const;
export type ImageService = (typeof IMAGE_SERVICES)[number];

export function isImageService(value: string | undefined): value is ImageService {
  return (IMAGE_SERVICES as readonly (string | undefined)[]).includes(value);
}
