import { describe, expect, it } from 'vitest';
import type { Database } from '@lode/db';
import type { webhooks } from '@lode/contracts';
import type { DeliveriesRepository } from '../repo/deliveries-repo.ts';
import type { WebhooksRepository } from '../repo/webhooks-repo.ts';
import type { SecretBox } from './secret-box.ts';
import { WebhookService } from './webhook-service.ts';

/** Refused before anything is read: the fakes would throw on any use. */
const service = new WebhookService({
  db: {} as Database,
  webhooks: {} as WebhooksRepository,
  deliveries: {} as DeliveriesRepository,
  box: {} as SecretBox,
  allowPrivate: false,
  onQueued: () => undefined,
  assertProject: () => Promise.resolve(),
});
const projectId = '00000000-0000-4000-8000-000000000001';

describe('who may manage webhooks', () => {
  // Roles the contract does not know yet stand for one added later: refused until listed.
  it.each(['member', 'viewer', 'billing', ''])('refuses the role %j', async (role) => {
    const manager = { projectId, role } as webhooks.Manager;
    await expect(service.list(manager)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(service.create({ manager, url: 'https://ci.example.com', events: ['lock.acquired'], description: '' })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });
});
