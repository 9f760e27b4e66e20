import { z } from 'zod';
import { defineContract, defineRoute } from './contract.ts';
import { actorSchema, roleSchema, uuid, type Actor } from './common.ts';
import { PROJECT_PATH } from './commit.ts';
import type { HttpBinding } from './http.ts';
import { publicEventSchema, publicEventTypeSchema } from './public-events.ts';

// ---- Webhooks (docs/api.md, Webhooks): managed per project by its org's owners and admins -------

export const MAX_WEBHOOKS_PER_PROJECT = 20;
export const MAX_WEBHOOK_URL_LENGTH = 2000;
export const MAX_DESCRIPTION_LENGTH = 500;

/**
 * Who manages: a project key's role (only owner and admin may), or the admin API (`operator`), which
 * acts for whoever runs the deployment. The webhooks service applies the rule.
 */
export const managerSchema = z.object({ projectId: uuid, role: z.union([roleSchema, z.literal('operator')]) });
export type Manager = z.infer<typeof managerSchema>;

export const webhookUrl = z
  .string()
  .max(MAX_WEBHOOK_URL_LENGTH)
  .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), 'must be an http or https URL');

const eventTypes = z
  .array(publicEventTypeSchema)
  .min(1, 'must list at least one event type')
  .refine((types) => new Set(types).size === types.length, 'must not list a type twice');

export const createBodySchema = z.object({ url: webhookUrl, events: eventTypes, description: z.string().max(MAX_DESCRIPTION_LENGTH).default('') });
export const updateBodySchema = z
  .object({
    url: webhookUrl.optional(),
    events: eventTypes.optional(),
    description: z.string().max(MAX_DESCRIPTION_LENGTH).optional(),
    disabled: z.boolean().optional(),
    rotateSecret: z.literal(true).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'must change at least one of url, events, description, disabled, rotateSecret');

export const webhookSchema = z.object({
  id: uuid,
  url: z.string(),
  events: z.array(publicEventTypeSchema),
  description: z.string(),
  disabled: z.boolean(),
  /** Why it was disabled by the system (a 410 answer), or null. */
  disabledReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Webhook = z.infer<typeof webhookSchema>;
/** The signing secret (`whsec_…`) is answered only when it is made: at creation and on rotateSecret. */
export const webhookWithSecretSchema = webhookSchema.extend({ secret: z.string() });

/** A webhook route as both callers reach it; `path` goes on after `…/webhooks`. */
interface ManagedRoute<Q extends z.ZodObject, B extends z.ZodType> {
  method: HttpBinding['method'];
  path: string;
  summary: string;
  /** Counts against the project's write rate limit when a key calls it (the admin API has none). */
  write?: true;
  query?: Q;
  body?: B;
  status?: 201 | 202;
  errors?: readonly number[];
  noStore?: true;
}

type ManagedInput<Q extends z.ZodObject, B extends z.ZodType> = { params: Readonly<Record<string, string>>; query: z.output<Q>; body: z.output<B> };

/**
 * The two routes of one webhook call: under a project for its org's owners and admins with a key
 * (the key's role decides), and in the admin API for operators. A malformed webhook id is unknown.
 */
function managed<R, Q extends z.ZodObject = z.ZodObject<Record<never, never>>, B extends z.ZodType = z.ZodObject<Record<never, never>>>(
  route: ManagedRoute<Q, B>,
  request: (manager: Manager, input: ManagedInput<Q, B>) => R,
) {
  const { write, path, ...rest } = route;
  const keyManager = (actor: Actor): Manager => ({ projectId: actor.projectId, role: actor.role });
  return {
    key: {
      ...rest,
      ...(write ? { write } : {}),
      tag: 'Webhooks',
      auth: 'key',
      path: `${PROJECT_PATH}/webhooks${path}`,
      notFound: { webhookId: 'Webhook' },
      request: (input: ManagedInput<Q, B> & { actor: Actor }) => request(keyManager(input.actor), input),
    } satisfies HttpBinding<R, 'key', Record<never, never>, Q, B>,
    operator: {
      ...rest,
      tag: 'Webhooks',
      auth: 'admin',
      path: `/admin/v1/projects/:projectId/webhooks${path}`,
      notFound: { projectId: 'Project', webhookId: 'Webhook' },
      request: (input: ManagedInput<Q, B>) => request({ projectId: input.params.projectId ?? '', role: 'operator' }, input),
    } satisfies HttpBinding<R, 'admin', Record<never, never>, Q, B>,
  };
}

const one = (manager: Manager, { params }: { params: Readonly<Record<string, string>> }) => ({ manager, webhookId: params.webhookId ?? '' });

// Creation answers the signing secret, and so may an update (a rotation).
const creating = managed(
  {
    method: 'post',
    path: '',
    summary: 'Create a webhook (its signing secret is shown once)',
    write: true,
    body: createBodySchema,
    status: 201,
    errors: [409],
    noStore: true,
  },
  (manager, { body }) => ({ manager, ...body }),
);
export const create = defineContract(
  'webhooks',
  'create',
  z.object({ manager: managerSchema, ...createBodySchema.shape }),
  webhookWithSecretSchema,
  creating.key,
);
export const createByOperator = defineRoute(create, creating.operator);

const listing = managed({ method: 'get', path: '', summary: "The project's webhooks" }, (manager) => ({ manager }));
export const list = defineContract('webhooks', 'list', z.object({ manager: managerSchema }), z.object({ data: z.array(webhookSchema) }), listing.key);
export const listByOperator = defineRoute(list, listing.operator);

const getting = managed({ method: 'get', path: '/:webhookId', summary: 'One webhook' }, one);
export const get = defineContract('webhooks', 'get', z.object({ manager: managerSchema, webhookId: uuid }), webhookSchema, getting.key);
export const getByOperator = defineRoute(get, getting.operator);

const updating = managed(
  { method: 'patch', path: '/:webhookId', summary: 'Change a webhook, or rotate its secret', write: true, body: updateBodySchema, noStore: true },
  (manager, input) => ({ ...one(manager, input), changes: input.body }),
);
export const update = defineContract(
  'webhooks',
  'update',
  z.object({ manager: managerSchema, webhookId: uuid, changes: updateBodySchema }),
  webhookSchema.extend({ secret: z.string().optional() }),
  updating.key,
);
export const updateByOperator = defineRoute(update, updating.operator);

const removing = managed({ method: 'delete', path: '/:webhookId', summary: 'Delete a webhook', write: true }, one);
export const remove = defineContract(
  'webhooks',
  'delete',
  z.object({ manager: managerSchema, webhookId: uuid }),
  z.object({ deleted: z.literal(true) }),
  removing.key,
);
export const removeByOperator = defineRoute(remove, removing.operator);

export const deliverySchema = z.object({
  eventId: uuid,
  eventType: z.string(),
  /** pending: to be sent (again) at nextAttemptAt; delivered; failed: given up (a 4xx, or 24 h of retries). */
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int().min(0),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
});
export type Delivery = z.infer<typeof deliverySchema>;

export const deliveriesQuerySchema = z.object({
  cursor: z
    .string()
    .regex(/^\d{1,18}$/, 'must be a cursor from a previous page')
    .optional(),
  limit: z.coerce.number().int().min(1).max(200, 'must be at most 200').default(50),
});
const listingDeliveries = managed(
  { method: 'get', path: '/:webhookId/deliveries', summary: "A webhook's deliveries, newest first", query: deliveriesQuerySchema },
  (manager, input) => ({ ...one(manager, input), ...input.query }),
);
export const listDeliveries = defineContract(
  'webhooks',
  'list_deliveries',
  z.object({ manager: managerSchema, webhookId: uuid, ...deliveriesQuerySchema.shape }),
  z.object({ data: z.array(deliverySchema), nextCursor: z.string().nullable() }),
  listingDeliveries.key,
);
export const listDeliveriesByOperator = defineRoute(listDeliveries, listingDeliveries.operator);

const pinging = managed({ method: 'post', path: '/:webhookId/ping', summary: 'Send a webhook.ping event', write: true, status: 202 }, one);
export const ping = defineContract('webhooks', 'ping_webhook', z.object({ manager: managerSchema, webhookId: uuid }), z.object({ eventId: uuid }), pinging.key);
export const pingByOperator = defineRoute(ping, pinging.operator);

// ---- The live feed (docs/api.md, Live feed): what a gateway streams as Server-Sent Events --------

export const MAX_FEED_WAIT_MS = 20_000;

/**
 * The project's events after `after` (a feed position, the SSE id), of `types` when given, waiting up
 * to `waitMs` for one if there is none yet. `after` null starts at the newest. `reset`: events after
 * `after` are past the retention (or `after` is not a position of this project): reload, then follow
 * from `next`.
 */
export const readFeed = defineContract(
  'webhooks',
  'read_feed',
  z.object({
    actor: actorSchema,
    after: z.number().int().min(0).nullable(),
    types: z.array(publicEventTypeSchema).nullable(),
    limit: z.number().int().min(1).max(500),
    waitMs: z.number().int().min(0).max(MAX_FEED_WAIT_MS),
  }),
  z.object({
    events: z.array(z.object({ position: z.number().int().min(1), event: publicEventSchema })),
    reset: z.boolean(),
    /** Where the next read starts: the last position read, including events `types` left out. */
    next: z.number().int().min(0),
  }),
);
