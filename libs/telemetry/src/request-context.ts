import { AsyncLocalStorage } from 'node:async_hooks';
import { trace } from '@opentelemetry/api';

const requestIds = new AsyncLocalStorage<string>();

/** Runs fn with a request id that every log line written inside it, and the active span, carry. */
export function withRequestId<T>(id: string, fn: () => T): T {
  trace.getActiveSpan()?.setAttribute('http.request.id', id);
  return requestIds.run(id, fn);
}

export function currentRequestId(): string | undefined {
  return requestIds.getStore();
}

interface OpenTransaction {
  open: boolean;
  callTimeoutMs: number;
}

const transactions = new AsyncLocalStorage<OpenTransaction>();

/**
 * Runs fn as the body of a database transaction (libs/db). While it is open, a bus call made inside
 * it waits at most callTimeoutMs for its reply (libs/bus): the transaction holds a connection, and
 * perhaps row locks, for as long as it waits. Work that fn started and that outlives the
 * transaction is no longer limited: the mark closes with it.
 */
export async function withinTransaction<T>(callTimeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const transaction: OpenTransaction = { open: true, callTimeoutMs };
  try {
    return await transactions.run(transaction, fn);
  } finally {
    transaction.open = false;
  }
}

/** The longest a bus call may wait here: set inside an open database transaction, undefined elsewhere. */
export function transactionCallTimeoutMs(): number | undefined {
  const transaction = transactions.getStore();
  return transaction?.open ? transaction.callTimeoutMs : undefined;
}
