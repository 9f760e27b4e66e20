import { webhooks } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { FeedService } from '../domain/feed-service.ts';

export function serveReadFeed(bus: Bus, service: FeedService): void {
  bus.serve(webhooks.readFeed, (request) => service.read(request));
}
