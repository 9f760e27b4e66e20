import path from 'node:path';

/** The repository root: the build context of the image and the directory manifests are rendered from. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** Every Lode service that runs as a long-lived Deployment (the image also runs `migrate`, once). */
export const DEPLOYED_SERVICES = ['gateway', 'upload', 'commit', 'lock', 'sync', 'restore'] as const;
