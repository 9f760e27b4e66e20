import { randomBytes, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { errors } from '@lode/errors';
import { managesOrg, publicEvents, webhooks, type ParsedRequestOf, type ReplyOf } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { DeliveriesRepository } from '../repo/deliveries-repo.ts';
import type { WebhookRow, WebhooksRepository } from '../repo/webhooks-repo.ts';
import { DESTINATION_NOT_ALLOWED, isPublicAddress, literalAddress } from './address-policy.ts';
import type { SecretBox } from './secret-box.ts';

type Manager = webhooks.Manager;
type Changes = ParsedRequestOf<typeof webhooks.update>['changes'];

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64, as the library reads it. */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function toWebhook(row: WebhookRow): webhooks.Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events as publicEvents.PublicEventType[],
    description: row.description,
    disabled: row.disabled,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Webhook management (docs/api.md, Webhooks): create, list, read, change, delete, ping, the delivery log. */
export class WebhookService {
  readonly #db: Database;
  readonly #webhooks: WebhooksRepository;
  readonly #deliveries: DeliveriesRepository;
  /** Secrets are stored sealed, and answered as issued only at creation and rotation. */
  readonly #box: SecretBox;
  readonly #allowPrivate: boolean;
  readonly #onQueued: () => void;
  readonly #assertProject: (projectId: string) => Promise<void>;

  /**
   * `assertProject` refuses a project that does not exist (404): the identity service owns projects.
   * A key's project exists; an operator names one in the path.
   */
  constructor(deps: {
    db: Database;
    webhooks: WebhooksRepository;
    deliveries: DeliveriesRepository;
    box: SecretBox;
    allowPrivate: boolean;
    onQueued: () => void;
    assertProject: (projectId: string) => Promise<void>;
  }) {
    this.#db = deps.db;
    this.#webhooks = deps.webhooks;
    this.#deliveries = deps.deliveries;
    this.#box = deps.box;
    this.#allowPrivate = deps.allowPrivate;
    this.#onQueued = deps.onQueued;
    this.#assertProject = deps.assertProject;
  }

  /**
   * Who may manage a project's webhooks, who see where its events go: the org's managers and the
   * operator (admin API). This service knows no projects, only webhooks: an unknown project would
   * read as one without webhooks, and could be given some, so the operator's project is checked.
   */
  async #assertMayManage(manager: Manager): Promise<void> {
    if (manager.role === 'operator') return this.#assertProject(manager.projectId);
    if (!managesOrg(manager.role)) throw errors.forbidden('Only org owners and admins may manage webhooks');
  }

  async create(request: ParsedRequestOf<typeof webhooks.create>): Promise<ReplyOf<typeof webhooks.create>> {
    await this.#assertMayManage(request.manager);
    await this.#assertReachable(request.url);
    const secret = newSecret();
    const id = randomUUID();
    const row = await this.#webhooks.insert(
      this.#db,
      request.manager.projectId,
      { id, url: request.url, events: request.events, description: request.description, secret: this.#box.seal(secret, id) },
      webhooks.MAX_WEBHOOKS_PER_PROJECT,
    );
    if (!row) throw errors.conflict(`A project has at most ${webhooks.MAX_WEBHOOKS_PER_PROJECT} webhooks`);
    return { ...toWebhook(row), secret };
  }

  async list(manager: Manager): Promise<ReplyOf<typeof webhooks.list>> {
    await this.#assertMayManage(manager);
    return { data: (await this.#webhooks.list(this.#db, manager.projectId)).map(toWebhook) };
  }

  async get(manager: Manager, webhookId: string): Promise<webhooks.Webhook> {
    return toWebhook(await this.#found(manager, webhookId));
  }

  async update(manager: Manager, webhookId: string, changes: Changes): Promise<ReplyOf<typeof webhooks.update>> {
    await this.#assertMayManage(manager);
    if (changes.url !== undefined) await this.#assertReachable(changes.url);
    const secret = changes.rotateSecret ? newSecret() : undefined;
    const sealed = secret === undefined ? undefined : this.#box.seal(secret, webhookId);
    const row = await this.#webhooks.update(this.#db, manager.projectId, webhookId, { ...changes, secret: sealed });
    if (!row) throw errors.notFound('Webhook');
    if (changes.disabled === false) this.#onQueued();
    return secret === undefined ? toWebhook(row) : { ...toWebhook(row), secret };
  }

  async remove(manager: Manager, webhookId: string): Promise<void> {
    await this.#assertMayManage(manager);
    if (!(await this.#webhooks.delete(this.#db, manager.projectId, webhookId))) throw errors.notFound('Webhook');
  }

  /** Queues a `webhook.ping` event to the endpoint, delivered and logged like any other. */
  async ping(manager: Manager, webhookId: string): Promise<{ eventId: string }> {
    const hook = await this.#found(manager, webhookId);
    const eventId = randomUUID();
    const event: publicEvents.PublicEvent = {
      id: eventId,
      type: publicEvents.PING_EVENT_TYPE,
      projectId: manager.projectId,
      occurredAt: new Date().toISOString(),
      data: { webhookId: hook.id },
    };
    await this.#deliveries.queue(this.#db, hook.id, eventId, event.type, JSON.stringify(event));
    this.#onQueued();
    return { eventId };
  }

  async deliveries(request: ParsedRequestOf<typeof webhooks.listDeliveries>): Promise<ReplyOf<typeof webhooks.listDeliveries>> {
    const hook = await this.#found(request.manager, request.webhookId);
    const rows = await this.#deliveries.page(this.#db, hook.id, request.cursor, request.limit + 1);
    const page = rows.slice(0, request.limit);
    return {
      data: page.map((row) => ({
        eventId: row.eventId,
        eventType: row.eventType,
        status: row.status,
        attempts: row.attempts,
        lastStatus: row.lastStatus,
        lastError: row.lastError,
        nextAttemptAt: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
        createdAt: row.createdAt.toISOString(),
        deliveredAt: row.deliveredAt?.toISOString() ?? null,
      })),
      nextCursor: rows.length > request.limit ? (page.at(-1)?.seq ?? null) : null,
    };
  }

  async #found(manager: Manager, webhookId: string): Promise<WebhookRow> {
    await this.#assertMayManage(manager);
    const row = await this.#webhooks.get(this.#db, manager.projectId, webhookId);
    if (!row) throw errors.notFound('Webhook');
    return row;
  }

  /**
   * Refuses a URL whose host is, or resolves to, a private address, so a mistake shows when the
   * webhook is saved; deliveries check again after their own resolution (domain/sender.ts). A name
   * that does not resolve now is accepted: its deliveries fail and are retried until it does. The
   * refusal never says what the name resolved to, nor why that address is refused: that would
   * answer a project's managers' questions about the cluster's internal DNS.
   */
  async #assertReachable(url: string): Promise<void> {
    if (this.#allowPrivate) return;
    const { hostname } = new URL(url);
    const literal = literalAddress(hostname);
    const addresses =
      literal !== undefined
        ? [literal]
        : await lookup(hostname, { all: true }).then(
            (found) => found.map((a) => a.address),
            () => [],
          );
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused !== undefined)
      throw errors.validation(`Invalid body: url: ${DESTINATION_NOT_ALLOWED}`, { issues: [{ path: 'url', message: 'destination not allowed' }] });
  }
}
