import type { z } from 'zod';

/**
 * One RPC: its NATS subject and the zod schemas of what goes in and comes out. Both the caller and the
 * server import the same object, so a field renamed on one side fails the typecheck on the other.
 */
export interface Contract<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  readonly service: string;
  readonly op: string;
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
}

export type RequestOf<C extends Contract> = z.input<C['request']>;
export type ParsedRequestOf<C extends Contract> = z.output<C['request']>;
export type ReplyOf<C extends Contract> = z.output<C['reply']>;
export type ReplyInputOf<C extends Contract> = z.input<C['reply']>;

export function defineContract<Req extends z.ZodType, Rep extends z.ZodType>(
  service: string,
  op: string,
  request: Req,
  reply: Rep,
): Contract<Req, Rep> {
  return { service, op, subject: `lode.${service}.v1.${op}`, request, reply };
}
