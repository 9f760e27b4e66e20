import { upload } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { UploadService } from '../domain/upload-service.ts';

export function serveInitiate(bus: Bus, service: UploadService): void {
  bus.serve(upload.initiate, ({ actor, file }) => service.initiate(actor, file));
}
