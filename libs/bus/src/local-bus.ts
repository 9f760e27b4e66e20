import { errors } from '@lode/errors';
import type { Contract, ReplyOf, RequestOf } from '@lode/contracts';
import { extractTraceContext, injectTraceContext, inSpan, SpanKind, type Logger } from '@lode/telemetry';
import type { Bus, CallOptions, Handler } from './bus.ts';
import { DEFAULT_TIMEOUT_MS, withTimeout } from './bus.ts';
import { dispatch, parseReply } from './dispatch.ts';
import { callHistogram, handlerHistogram, measured } from './bus-metrics.ts';

type AnyHandler = (payload: unknown) => Promise<unknown>;

/** The embedded-mode bus: the same contract checks as NATS, without a network hop. */
export class LocalBus implements Bus {
  readonly #handlers = new Map<string, AnyHandler>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  #closed = false;

  constructor(logger: Logger, options: { timeoutMs?: number } = {}) {
    this.#logger = logger;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  serve<C extends Contract>(contract: C, handler: Handler<C>): void {
    if (this.#handlers.has(contract.subject)) throw new Error(`${contract.subject} is already served`);
    this.#handlers.set(contract.subject, (payload) => dispatch(contract, handler, payload, this.#logger));
  }

  async call<C extends Contract>(contract: C, request: RequestOf<C>, options: CallOptions = {}): Promise<ReplyOf<C>> {
    const handler = this.#handlers.get(contract.subject);
    if (!handler || this.#closed) throw errors.serviceUnavailable(contract.service);
    const attributes = { 'messaging.destination.name': contract.subject };
    const call = () =>
      inSpan(`${contract.subject} call`, { kind: SpanKind.CLIENT, attributes }, async () => {
        // The same W3C headers a NATS message carries, so the server span's parent comes from them here too.
        const headers = new Map<string, string>();
        injectTraceContext((key, value) => headers.set(key, value));
        const parent = extractTraceContext((key) => headers.get(key));
        const work = inSpan(contract.subject, { kind: SpanKind.SERVER, attributes, parent }, () =>
          measured(handlerHistogram(), contract.subject, () => handler(request)),
        );
        // Tracked until the handler settles, not until the caller stops waiting: a handler whose caller
        // timed out is still running, and close() must not let shutdown pull its database away.
        this.#inFlight.add(work);
        const forget = () => this.#inFlight.delete(work);
        void work.then(forget, forget);
        const reply = await withTimeout(work, options.timeoutMs ?? this.#timeoutMs, contract.service);
        return parseReply(contract, reply, this.#logger) as ReplyOf<C>;
      });
    return measured(callHistogram(), contract.subject, call);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#inFlight]);
  }
}
