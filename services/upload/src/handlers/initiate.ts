import { upload } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { UploadService } from '../domain/upload-service.ts';

/** A single initiate is a batch of one whose failure is the call's error (413, 400, 409). */
export function serveInitiate(bus: Bus, service: UploadService): void {
  bus.serve(upload.initiate, async ({ actor, file }) => {
    const [result] = await service.initiateBatch(actor, [file]);
    if (!result) throw new Error('initiate produced no result');
    if ('failure' in result) throw result.failure;
    return result;
  });
}
