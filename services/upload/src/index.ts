export { startUploadService, UPLOAD_SCHEMA, type UploadDeps } from './start.ts';
export { uploadSettings } from './config.ts';
