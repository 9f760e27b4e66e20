import { upload } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { UploadService } from '../domain/upload-service.ts';

/** Per-file failures become the spec's error form `{path, error}` (plus our `code`), never a failed batch. */
export function serveInitiateBatch(bus: Bus, service: UploadService): void {
  bus.serve(upload.initiateBatch, async ({ actor, files }) => {
    const results = await service.initiateBatch(actor, files);
    return {
      results: results.map((r) => ('failure' in r ? { path: r.path, error: r.failure.message, code: r.failure.code } : r)),
    };
  });
}
