import { errors } from '@lode/errors';
import type { Contract, ParsedRequestOf, ReplyInputOf, ReplyOf, RequestOf } from '@lode/contracts';
import { transactionCallTimeoutMs } from '@lode/telemetry';

export interface CallOptions {
  /**
   * Milliseconds before the caller gives up with a `timeout` error. Inside an open database
   * transaction at most the transaction's own limit, whatever is asked (libs/db, Database.transaction).
   */
  timeoutMs?: number;
}

export type Handler<C extends Contract> = (request: ParsedRequestOf<C>) => Promise<ReplyInputOf<C>>;

/**
 * Request-reply between services. Both implementations validate the request with the contract on
 * the serving side and the reply on the calling side, carry AppErrors across intact, and propagate
 * trace context, so a service behaves the same in one process and over NATS.
 */
export interface Bus {
  serve<C extends Contract>(contract: C, handler: Handler<C>): void;
  call<C extends Contract>(contract: C, request: RequestOf<C>, options?: CallOptions): Promise<ReplyOf<C>>;
  /** Stops taking requests, lets in-flight handlers finish, then disconnects. */
  close(): Promise<void>;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
/** Node fires a timer longer than this after 1 ms instead (TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Settles like work, or rejects with `timeout` naming the service once ms have passed. A call made
 * while a database transaction is open waits no longer than that transaction allows: a reply that
 * never comes must not hold the transaction's connection and row locks for the caller's full wait.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, service: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = Math.min(ms, transactionCallTimeoutMs() ?? ms, MAX_TIMER_MS);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(errors.timeout(service)), limit);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
