import { webhooks } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { WebhookService } from '../domain/webhook-service.ts';

/** A webhook's delivery log, and its test event. */
export function serveDeliveries(bus: Bus, service: WebhookService): void {
  bus.serve(webhooks.listDeliveries, (request) => service.deliveries(request));
  bus.serve(webhooks.ping, ({ manager, webhookId }) => service.ping(manager, webhookId));
}
