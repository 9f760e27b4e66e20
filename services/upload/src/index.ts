export { startUploadService, UPLOAD_SCHEMA, uploadMigrations, type UploadDeps } from './start.ts';
export { uploadSettings } from './config.ts';
export { uploadStartup } from './startup.ts';
