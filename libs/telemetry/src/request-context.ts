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
