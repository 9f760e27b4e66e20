import type { z } from 'zod';
import { webhooksConfig, webhooksSettings } from './config.ts';
import { startWebhooksService, type WebhooksDeps } from './start.ts';

const settings = webhooksSettings;

/**
 * The webhooks service's settings and how they start it, for whatever hosts it: a process of its own
 * or one beside the others (the system's registry holds both). Written once, so the two cannot
 * start it differently.
 */
export const webhooksStartup = {
  settings,
  start: (runtime: Pick<WebhooksDeps, 'db' | 'bus' | 'events' | 'logger'>, config: z.output<z.ZodObject<typeof settings>>) =>
    startWebhooksService({ ...runtime, config: webhooksConfig(config) }),
};
