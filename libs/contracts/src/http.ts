import type { z } from 'zod';
import type { Actor } from './common.ts';

/**
 * Who may call a route: a project key bound to its device (or a dashboard session, which the project
 * routes accept as well), a dashboard session only, or the operators' admin token.
 */
export type HttpAuth = 'key' | 'session' | 'admin';

/** What the gateway established about the caller before the route's own input is read. */
export interface CallerOf {
  key: { actor: Actor };
  session: { viewerId: string };
  admin: Record<never, never>;
}

/**
 * A batch counted before its entries are validated, so an oversized one fails fast with 413
 * batch_too_large instead of a 400 about its 25,001st entry.
 */
export interface BatchLimit {
  /** The body's array field. */
  field: string;
  max: number;
  /** What the entries are, for the 413 message ("file versions", "files"). */
  what: string;
  hint?: string;
  /**
   * Entries go upstream unvalidated, each failing on its own in the reply (initiate-batch): the gateway
   * checks only that the field is an array of 1 to `max` entries.
   */
  entriesUpstream?: true;
}

/** A route's parsed input, as the binding's `request` receives it. */
export type HttpInput<A extends HttpAuth, P extends z.ZodRawShape, Q extends z.ZodObject, B extends z.ZodType> = CallerOf[A] & {
  /** The path's `…Id` parameters as lower-case UUIDs, and the others as `params` parses them. */
  params: z.output<z.ZodObject<P>> & Readonly<Record<string, string>>;
  query: z.output<Q>;
  body: z.output<B>;
  /** The request's X-Idempotency-Key, on a binding that takes one. */
  idempotencyKey: string | undefined;
};

/**
 * How one RPC is reached over HTTP. The gateway mounts every bound contract with the same steps
 * (authentication, the write limit, validation, the bus call, the status); the OpenAPI document and
 * the fuzz catalogue are read from the same bindings, so a route is declared here and nowhere else.
 */
export interface HttpBinding<
  R = unknown,
  A extends HttpAuth = HttpAuth,
  P extends z.ZodRawShape = z.ZodRawShape,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodType,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The express route template, in full (`/api/v1/projects/:projectId/locks`). */
  path: string;
  /** The OpenAPI tag it is listed under. */
  tag: string;
  summary: string;
  description?: string;
  auth: A;
  /** Counts against the project's write rate limit, so it may answer 429. */
  write?: true;
  /** Path parameters not named `…Id`; an `…Id` is a UUID. */
  params?: P;
  /**
   * The `…Id` parameters a malformed value reads as unknown for, with what they name (`{ orgId:
   * 'Organization' }`): 404, as for an id that names nothing. Any other malformed id is the caller's
   * mistake in that field: 400. A key route's project id is the key's to check, never the binding's.
   */
  notFound?: Readonly<Record<string, string>>;
  query?: Q;
  body?: B;
  /**
   * The body as OpenAPI describes it, where `body` checks entries with a fast path (loopChecked)
   * that JSON Schema cannot render: the same rules, entry by entry.
   */
  documentedBody?: z.ZodType;
  batch?: BatchLimit;
  /** Reads X-Idempotency-Key: a retry with the same key answers with the first result. */
  idempotent?: true;
  /** The answer carries a secret (a key, a signing secret): no cache may keep it. */
  noStore?: true;
  /** Changes what a key may do: the gateway forgets the answered key (`{ id }`) from its cache at once. */
  forgetsKey?: true;
  /** Ends or restores a project's keys: the gateway forgets every cached key of the path's project at once. */
  forgetsProject?: true;
  /** The success status; 200 unless given. */
  status?: 201 | 202;
  /**
   * Error statuses it answers beyond those its kind, its path's ids and the gateway's guards give it:
   * what its service decides.
   */
  errors?: readonly number[];
  /** How long the gateway waits for the reply, when longer than the bus's default. */
  timeoutMs?: (request: R) => number;
  /**
   * The RPC's request from the route's input; unless given, `{ ...caller, ...params, ...query, ...body }`
   * and the `idempotencyKey` of a binding that reads one.
   */
  request?: (input: HttpInput<A, P, Q, B>) => R;
}
