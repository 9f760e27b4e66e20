import { webhooks } from '@lode/contracts';
import type { Operation, OperationGroup } from '../operation.ts';

/**
 * The webhook routes (routes/webhooks.ts serves the same set twice): under a project for its org's
 * owners and admins with a key, and in the admin API for operators.
 */
function webhookRoutes(project: string, auth: 'key' | 'admin'): Operation[] {
  const write = auth === 'key';
  const one = `${project}/webhooks/:webhookId`;
  return [
    { method: 'post', path: `${project}/webhooks`, summary: 'Create a webhook (its signing secret is shown once)', auth, write, body: webhooks.createBodySchema, status: 201, reply: webhooks.create.reply, errors: [409] },
    { method: 'get', path: `${project}/webhooks`, summary: "The project's webhooks", auth, reply: webhooks.list.reply },
    { method: 'get', path: one, summary: 'One webhook', auth, reply: webhooks.get.reply },
    { method: 'patch', path: one, summary: 'Change a webhook, or rotate its secret', auth, write, body: webhooks.updateBodySchema, reply: webhooks.update.reply },
    { method: 'delete', path: one, summary: 'Delete a webhook', auth, write, reply: webhooks.remove.reply },
    { method: 'get', path: `${one}/deliveries`, summary: "A webhook's deliveries, newest first", auth, query: webhooks.deliveriesQuerySchema, reply: webhooks.listDeliveries.reply },
    { method: 'post', path: `${one}/ping`, summary: 'Send a webhook.ping event', auth, write, status: 202, reply: webhooks.ping.reply },
  ];
}

export const webhookOperations: OperationGroup = {
  tag: 'Webhooks',
  description: "Signed HTTP callbacks for the project's events (docs/api.md, Webhooks): managed by its organization's owners and admins, and by operators.",
  operations: [...webhookRoutes('/api/v1/projects/:projectId', 'key'), ...webhookRoutes('/admin/v1/projects/:projectId', 'admin')],
};
