import { createInbox, headers as natsHeaders, nuid, type MsgHdrs, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { AppError, errors, isErrorCode } from '@lode/errors';
import type { Contract, ReplyOf, RequestOf } from '@lode/contracts';
import { currentRequestId, extractTraceContext, injectTraceContext, inSpan, SpanKind, withRequestId, type Logger } from '@lode/telemetry';
import type { Bus, CallOptions, Handler } from './bus.ts';
import { DEFAULT_TIMEOUT_MS, withTimeout } from './bus.ts';
import { asAppError, dispatch, parseReply } from './dispatch.ts';
import { decode, encode, splitChunks } from './wire.ts';
import { H } from './headers.ts';
import { callHistogram, handlerHistogram, measured } from './bus-metrics.ts';

interface PendingCall {
  service: string;
  chunks: Buffer[];
  received: number;
  resolve: (msg: { data: Buffer; headers: MsgHdrs | undefined }) => void;
  reject: (error: AppError) => void;
  /** Set when the responder asks for the request body in chunks (large-request handshake). */
  onSendTo?: (subject: string) => void;
}

export interface NatsBusOptions {
  /** Prepended to every subject; isolates concurrent test runs on one NATS server. */
  namespace?: string;
  /** Largest frame we publish; defaults to the server's max_payload less room for headers. */
  maxFrameBytes?: number;
  /** Default time a call waits for its reply. */
  timeoutMs?: number;
}

/**
 * Request-reply over core NATS with queue groups. Replies come back through one wildcard inbox
 * owned by this connection, routed by token, so a reply larger than the server's max_payload can
 * arrive as ordered chunks; a large request first asks the chosen responder for a private inbox and
 * then streams its chunks there. No server limit is raised and no JetStream is needed.
 *
 * While the connection is down, calls fail at once with service_unavailable: nats.js would buffer
 * what we publish and drop it when it redials, so waiting could only end in a timeout. Its
 * subscriptions (queue groups, the reply inbox) come back by themselves on reconnect.
 */
export class NatsBus implements Bus {
  readonly #nc: NatsConnection;
  readonly #logger: Logger;
  readonly #namespace: string;
  readonly #frameBytes: number;
  readonly #timeoutMs: number;
  readonly #inbox = createInbox();
  readonly #pending = new Map<string, PendingCall>();
  readonly #subscriptions: Subscription[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  readonly #replySubscription: Subscription;
  /** False from a disconnect until the reconnect. */
  #connected = true;
  /** Ends each chunked request being collected: its chunks are lost with the connection. */
  readonly #collecting = new Set<() => void>();

  constructor(nc: NatsConnection, logger: Logger, options: NatsBusOptions = {}) {
    this.#nc = nc;
    this.#logger = logger;
    this.#namespace = options.namespace ? `${options.namespace}.` : '';
    const serverMax = nc.info?.max_payload ?? 1024 * 1024;
    this.#frameBytes = options.maxFrameBytes ?? Math.max(1024, serverMax - 16 * 1024);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#replySubscription = nc.subscribe(`${this.#inbox}.*`, {
      callback: (error, msg) => {
        if (!error) this.#onReply(msg);
      },
    });
    this.#followConnection().catch((error: unknown) => this.#logger.error({ err: error }, 'NATS status stream failed'));
  }

  /** Rejects at once with service_unavailable while disconnected; otherwise resolves once the server answers a ping. */
  async ready(): Promise<void> {
    if (!this.#isConnected()) throw errors.serviceUnavailable('nats');
    await this.#nc.flush();
  }

  serve<C extends Contract>(contract: C, handler: Handler<C>): void {
    const subscription = this.#nc.subscribe(this.#namespace + contract.subject, {
      queue: `lode.${contract.service}`,
      callback: (error, msg) => {
        if (error) {
          this.#logger.error({ err: error, subject: contract.subject }, 'subscription failed');
          return;
        }
        const requestId = msg.headers?.get(H.requestId);
        const work = requestId ? withRequestId(requestId, () => this.#serveOne(contract, handler, msg)) : this.#serveOne(contract, handler, msg);
        this.#inFlight.add(work);
        // #serveOne answers every failure itself (an error reply, or a log line when no reply can be
        // sent): a rejection here would have no one to handle it.
        void work.finally(() => this.#inFlight.delete(work));
      },
    });
    this.#subscriptions.push(subscription);
  }

  async call<C extends Contract>(contract: C, request: RequestOf<C>, options: CallOptions = {}): Promise<ReplyOf<C>> {
    const subject = this.#namespace + contract.subject;
    const call = () =>
      inSpan(`${contract.subject} call`, { kind: SpanKind.CLIENT, attributes: { 'messaging.destination.name': contract.subject } }, async () => {
        if (!this.#isConnected()) throw errors.serviceUnavailable(contract.service);
        const body = encode(request);
        const token = nuid.next();
        const reply = `${this.#inbox}.${token}`;
        const hdrs = natsHeaders();
        injectTraceContext((k, v) => hdrs.set(k, v));
        const requestId = currentRequestId();
        if (requestId) hdrs.set(H.requestId, requestId);

        const answer = new Promise<{ data: Buffer; headers: MsgHdrs | undefined }>((resolve, reject) => {
          const pending: PendingCall = { service: contract.service, chunks: [], received: 0, resolve, reject };
          if (body.length > this.#frameBytes) pending.onSendTo = (target) => this.#publishFrames(target, body, natsHeaders());
          this.#pending.set(token, pending);
        });

        try {
          if (body.length > this.#frameBytes) {
            hdrs.set(H.requestBytes, String(body.length));
            this.#nc.publish(subject, new Uint8Array(0), { reply, headers: hdrs });
          } else {
            this.#nc.publish(subject, body, { reply, headers: hdrs });
          }
          const msg = await withTimeout(answer, options.timeoutMs ?? this.#timeoutMs, contract.service);
          const errorCode = msg.headers?.get(H.error);
          const payload = decode(msg.data);
          if (errorCode) throw toAppError(errorCode, payload);
          return parseReply(contract, payload, this.#logger) as ReplyOf<C>;
        } finally {
          this.#pending.delete(token);
        }
      });
    return measured(callHistogram(), contract.subject, call);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#subscriptions.map((s) => s.drain()));
    await Promise.allSettled([...this.#inFlight]);
    this.#replySubscription.unsubscribe();
    this.#failPending();
  }

  #isConnected(): boolean {
    return this.#connected && !this.#nc.isClosed();
  }

  async #followConnection(): Promise<void> {
    for await (const status of this.#nc.status()) {
      if (status.type === 'disconnect') {
        this.#logger.warn({ server: status.server }, 'NATS disconnected: calls fail with service_unavailable until it is back');
        this.#loseConnection();
      } else if (status.type === 'reconnect') {
        this.#connected = true;
        this.#logger.info({ server: status.server }, 'NATS reconnected');
      }
    }
    // The stream ends when the connection closes for good.
    this.#loseConnection();
  }

  /** Nothing sent or subscribed before the disconnect reaches us any more: what waits on it ends now. */
  #loseConnection(): void {
    this.#connected = false;
    this.#failPending();
    for (const abandon of this.#collecting) abandon();
  }

  #failPending(): void {
    for (const pending of this.#pending.values()) pending.reject(errors.serviceUnavailable(pending.service));
  }

  #onReply(msg: Msg): void {
    const token = msg.subject.slice(this.#inbox.length + 1);
    const pending = this.#pending.get(token);
    if (!pending) return;
    if (msg.headers?.code === 503) {
      pending.reject(errors.serviceUnavailable(pending.service));
      return;
    }
    const sendTo = msg.headers?.get(H.sendTo);
    if (sendTo && pending.onSendTo) {
      pending.onSendTo(sendTo);
      return;
    }
    const chunk = msg.headers?.get(H.chunk);
    if (!chunk) {
      pending.resolve({ data: Buffer.from(msg.data), headers: msg.headers });
      return;
    }
    const total = Number(chunk.split('/')[1]);
    pending.chunks.push(Buffer.from(msg.data));
    pending.received += 1;
    if (pending.received === total) pending.resolve({ data: Buffer.concat(pending.chunks), headers: msg.headers });
  }

  async #serveOne<C extends Contract>(contract: C, handler: Handler<C>, msg: Msg): Promise<void> {
    const parent = extractTraceContext((k) => msg.headers?.get(k) || undefined);
    await inSpan(contract.subject, { kind: SpanKind.SERVER, parent, attributes: { 'messaging.destination.name': contract.subject } }, async () => {
      if (!msg.reply) return;
      let reply: Buffer;
      const hdrs = natsHeaders();
      try {
        const body = msg.headers?.get(H.requestBytes) ? await this.#receiveChunks(msg, contract.service) : Buffer.from(msg.data);
        reply = encode(await measured(handlerHistogram(), contract.subject, () => dispatch(contract, handler, decode(body), this.#logger)));
      } catch (error) {
        const appError = asAppError(error, contract, this.#logger);
        hdrs.set(H.error, appError.code);
        reply = encode(appError.toJSON());
      }
      if (!this.#isConnected()) {
        // Its caller has already failed with service_unavailable, and nats.js would drop the reply on redialling.
        this.#logger.warn({ subject: contract.subject }, 'reply not sent: NATS is disconnected');
        return;
      }
      try {
        this.#publishFrames(msg.reply, reply, hdrs);
      } catch (error) {
        // The connection closed or is draining under the handler: the caller gets no answer and
        // times out (or its bus closes), as if this process had died. Nothing else is lost.
        this.#logger.warn({ err: error, subject: contract.subject }, 'reply not sent');
      }
    });
  }

  /** Large request: hand the caller a private inbox, then collect its ordered chunks there. */
  async #receiveChunks(offer: Msg, service: string): Promise<Buffer> {
    if (!this.#isConnected()) throw errors.serviceUnavailable('nats');
    const target = createInbox();
    const chunks: Buffer[] = [];
    const subscription = this.#nc.subscribe(target);
    const h = natsHeaders();
    h.set(H.sendTo, target);
    this.#nc.publish(offer.reply!, new Uint8Array(0), { headers: h });
    const collect = async () => {
      for await (const chunk of subscription) {
        chunks.push(Buffer.from(chunk.data));
        const [index, total] = (chunk.headers?.get(H.chunk) ?? '1/1').split('/').map(Number);
        if (index === total) break;
      }
    };
    const abandon = () => subscription.unsubscribe();
    this.#collecting.add(abandon);
    try {
      // By its timeout the caller has given up on chunks that have not all come.
      await withTimeout(collect(), this.#timeoutMs, service);
    } finally {
      this.#collecting.delete(abandon);
      subscription.unsubscribe();
    }
    const body = Buffer.concat(chunks);
    if (body.length !== Number(offer.headers?.get(H.requestBytes))) {
      throw errors.validation('Chunked request arrived incomplete');
    }
    return body;
  }

  /**
   * Publishes a payload as one message, or as ordered `Lode-Chunk: i/n` frames when it exceeds the
   * frame size; `hdrs` ride on the last frame, where the receiver reads them once it has all parts.
   */
  #publishFrames(subject: string, body: Buffer, hdrs: MsgHdrs): void {
    if (body.length <= this.#frameBytes) {
      this.#nc.publish(subject, body, { headers: hdrs });
      return;
    }
    const chunks = splitChunks(body, this.#frameBytes);
    chunks.forEach((chunk, i) => {
      const h = i === chunks.length - 1 ? hdrs : natsHeaders();
      h.set(H.chunk, `${i + 1}/${chunks.length}`);
      this.#nc.publish(subject, chunk, { headers: h });
    });
  }
}

function toAppError(code: string, payload: unknown): AppError {
  const { message, code: _code, ...details } = (payload ?? {}) as { message?: string; code?: string };
  // toJSON() flattens details into the body; an error that had none must not come back with `{}`,
  // or it would differ from the same error thrown through LocalBus.
  const hasDetails = Object.keys(details).length > 0;
  return new AppError(isErrorCode(code) ? code : 'internal', message ?? 'Remote error', hasDetails ? details : undefined);
}
