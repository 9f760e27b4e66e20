import { upload } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { UploadService } from '../domain/upload-service.ts';

export function serveResolveVersions(bus: Bus, service: UploadService): void {
  bus.serve(upload.resolveVersions, ({ projectId, fileIds, versions }) => service.resolve(projectId, fileIds, versions));
}
