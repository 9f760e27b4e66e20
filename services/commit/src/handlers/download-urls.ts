import { download } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { DownloadService } from '../domain/download-service.ts';

export function serveDownloadUrls(bus: Bus, service: DownloadService): void {
  bus.serve(download.urls, async ({ actor, branch, files }) => ({ results: await service.urls(actor, branch, files) }));
}
