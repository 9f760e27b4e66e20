import path from 'node:path';
import { SERVICE_NAMES } from '@lode/system/names';

/** The repository root: the build context of the image and the directory manifests are rendered from. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** Every Lode process that runs as a long-lived Deployment (the image also runs `migrate`, once). */
export const DEPLOYED_SERVICES = ['gateway', ...SERVICE_NAMES] as const;
