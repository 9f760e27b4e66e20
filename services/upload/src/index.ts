export { startUploadService, UPLOAD_SCHEMA, type UploadDeps } from './start.ts';
