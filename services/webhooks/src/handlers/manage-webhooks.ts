import { webhooks } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { WebhookService } from '../domain/webhook-service.ts';

/** Create, list, read, change and delete a project's webhooks. */
export function serveManageWebhooks(bus: Bus, service: WebhookService): void {
  bus.serve(webhooks.create, (request) => service.create(request));
  bus.serve(webhooks.list, ({ manager }) => service.list(manager));
  bus.serve(webhooks.get, ({ manager, webhookId }) => service.get(manager, webhookId));
  bus.serve(webhooks.update, ({ manager, webhookId, changes }) => service.update(manager, webhookId, changes));
  bus.serve(webhooks.remove, async ({ manager, webhookId }) => {
    await service.remove(manager, webhookId);
    return { deleted: true as const };
  });
}
