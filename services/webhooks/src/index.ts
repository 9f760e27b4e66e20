export { startWebhooksService, WEBHOOKS_SCHEMA, webhooksMigrations, type WebhooksDeps, type RunningWebhooksService } from './start.ts';
export { webhooksConfig, webhooksSettings, type WebhooksConfig } from './config.ts';
export { webhooksStartup } from './startup.ts';
