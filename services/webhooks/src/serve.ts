import { webhooks } from '@lode/contracts';
import { rpc, type Rpc } from '@lode/bus';
import type { FeedService } from './domain/feed-service.ts';
import type { WebhookService } from './domain/webhook-service.ts';

/** The webhooks service's table: each contract it answers and the domain call that answers it. */
export function webhooksRpcs(hooks: WebhookService, feed: FeedService): Rpc[] {
  return [
    rpc(webhooks.create, (request) => hooks.create(request)),
    rpc(webhooks.list, ({ manager }) => hooks.list(manager)),
    rpc(webhooks.get, ({ manager, webhookId }) => hooks.get(manager, webhookId)),
    rpc(webhooks.update, ({ manager, webhookId, changes }) => hooks.update(manager, webhookId, changes)),
    rpc(webhooks.remove, async ({ manager, webhookId }) => {
      await hooks.remove(manager, webhookId);
      return { deleted: true as const };
    }),
    rpc(webhooks.listDeliveries, (request) => hooks.deliveries(request)),
    rpc(webhooks.ping, ({ manager, webhookId }) => hooks.ping(manager, webhookId)),
    rpc(webhooks.readFeed, (request) => feed.read(request)),
  ];
}
