import { upload } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { UploadService } from '../domain/upload-service.ts';

export function serveConfirm(bus: Bus, service: UploadService): void {
  bus.serve(upload.confirm, ({ actor, upload: body }) => service.confirm(actor, body));
}
