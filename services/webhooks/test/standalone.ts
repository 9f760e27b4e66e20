import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { LocalBus, LocalEvents } from '@lode/bus';
import { Database } from '@lode/db';
import { createLogger } from '@lode/telemetry';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import type { WebhooksConfig } from '../src/config.ts';
import { startWebhooksService, WEBHOOKS_SCHEMA, type RunningWebhooksService } from '../src/start.ts';

const logger = createLogger('test', 'silent');

/** The webhooks service alone on a database of its own, over an in-process bus and event stream. */
export class StandaloneWebhooks {
  db!: Database;
  bus!: LocalBus;
  events!: LocalEvents;
  service!: RunningWebhooksService;
  readonly #config: WebhooksConfig;
  #database?: TestDatabase;

  constructor(config: WebhooksConfig) {
    this.#config = config;
  }

  async open(): Promise<void> {
    this.#database = await createTestDatabase();
    this.db = new Database({ connectionString: this.#database.url, schema: WEBHOOKS_SCHEMA, max: 2 });
    await this.#start();
  }

  /** Stopped and started again as the embedded process is: a new in-process stream, which remembers no event id. */
  async restart(): Promise<void> {
    await this.#stop();
    await this.#start();
  }

  async close(): Promise<void> {
    await this.#stop();
    await this.db?.close();
    await this.#database?.drop();
  }

  async #start(): Promise<void> {
    this.bus = new LocalBus(logger);
    this.events = new LocalEvents(logger);
    this.service = await startWebhooksService({ db: this.db, bus: this.bus, events: this.events, logger, config: this.#config });
  }

  async #stop(): Promise<void> {
    await this.service?.stop();
    await this.events?.close();
    await this.bus?.close();
  }
}

/**
 * For the enclosing describe: the webhooks service alone, opened before its tests and closed after
 * them, with fast retries and a short attempt timeout; `config` sets what the test pins down.
 */
export function standaloneWebhooks(config: Pick<WebhooksConfig, 'allowPrivate'> & Partial<WebhooksConfig>): StandaloneWebhooks {
  const webhooks = new StandaloneWebhooks({
    retryBaseMs: 20,
    retryWindowMs: 60_000,
    timeoutMs: 2000,
    pollMs: 1000,
    feedRetentionMs: 60_000,
    outboxRetentionMs: 60_000,
    secretsKey: randomBytes(32),
    ...config,
  });
  beforeAll(() => webhooks.open());
  afterAll(() => webhooks.close());
  return webhooks;
}
