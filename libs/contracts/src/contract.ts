import type { z } from 'zod';
import type { HttpAuth, HttpBinding } from './http.ts';

/**
 * One RPC: its NATS subject and the zod schemas of what goes in and comes out, and for a public
 * endpoint how HTTP reaches it. Both the caller and the server import the same object, so a field
 * renamed on one side fails the typecheck on the other.
 */
export interface Contract<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  readonly service: string;
  readonly op: string;
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
  /** Its own schemas widened: a contract is one type, whatever its route takes. */
  readonly http?: HttpBinding<z.input<Req>, HttpAuth, z.ZodRawShape, z.ZodObject, z.ZodType>;
}

/**
 * One public route and the contract it reaches; the gateway mounts each alike. A contract's own
 * binding is one; a contract two routes reach (the same call with another fixed field) has a second.
 */
export interface Endpoint {
  readonly contract: Contract;
  readonly http: NonNullable<Contract['http']>;
}

export type RequestOf<C extends Contract> = z.input<C['request']>;
export type ParsedRequestOf<C extends Contract> = z.output<C['request']>;
export type ReplyOf<C extends Contract> = z.output<C['reply']>;
export type ReplyInputOf<C extends Contract> = z.input<C['reply']>;

export function defineContract<
  Req extends z.ZodType,
  Rep extends z.ZodType,
  A extends HttpAuth = HttpAuth,
  P extends z.ZodRawShape = Record<never, never>,
  Q extends z.ZodObject = z.ZodObject<Record<never, never>>,
  B extends z.ZodType = z.ZodObject<Record<never, never>>,
>(service: string, op: string, request: Req, reply: Rep, http?: HttpBinding<NoInfer<z.input<Req>>, A, P, Q, B>): Contract<Req, Rep> {
  // The gateway hands `request` the caller of the binding's own kind, which the erased type cannot say.
  return { service, op, subject: `lode.${service}.v1.${op}`, request, reply, ...(http ? { http: http as unknown as Contract<Req>['http'] } : {}) };
}

/** A second route to `contract`, declared beside it. */
export function defineRoute<
  C extends Contract,
  A extends HttpAuth = HttpAuth,
  P extends z.ZodRawShape = Record<never, never>,
  Q extends z.ZodObject = z.ZodObject<Record<never, never>>,
  B extends z.ZodType = z.ZodObject<Record<never, never>>,
>(contract: C, http: HttpBinding<NoInfer<RequestOf<C>>, A, P, Q, B>): Endpoint {
  return { contract, http: http as unknown as Endpoint['http'] };
}
