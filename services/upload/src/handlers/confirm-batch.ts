import { upload } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { UploadService } from '../domain/upload-service.ts';

/** Per-file failures become the error form `{ fileId, version, error, code }`, never a failed batch. */
export function serveConfirmBatch(bus: Bus, service: UploadService): void {
  bus.serve(upload.confirmBatch, async ({ actor, files }) => {
    const results = await service.confirmBatch(actor, files);
    return {
      results: results.map((r) => {
        if (!('failure' in r)) return r;
        const form = { fileId: r.fileId, version: r.version, error: r.failure.message, code: r.failure.code };
        return r.failure.code === 'version_conflict' ? { ...form, versionConflict: true as const } : form;
      }),
    };
  });
}
