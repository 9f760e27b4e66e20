import type { z } from 'zod';

/**
 * One kind of event: its name, the subject it travels on and the zod schema of its payload. The
 * publisher and every consumer import the same object, as they do for RPC contracts.
 */
export interface EventContract<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** Un-namespaced subject, `lode.events.<name>`; a bus namespace is prefixed by the event stream. */
  readonly subject: string;
  readonly schema: S;
}

export type EventOf<E extends EventContract> = z.output<E['schema']>;

export function defineEvent<S extends z.ZodType>(name: string, schema: S): EventContract<S> {
  return { name, subject: `lode.events.${name}`, schema };
}
