import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { DESTINATION_NOT_ALLOWED, isPublicAddress, literalAddress } from './address-policy.ts';
import type { AttemptResult } from './retry-plan.ts';

export interface OutgoingDelivery {
  url: string;
  secret: string;
  /** The webhook-id header: the event's id, the same on every attempt, for receivers to deduplicate. */
  eventId: string;
  body: string;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** Bytes of an answer read (then dropped): enough for an error page, never an endless body. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Carries what the name resolved to, for the operator's log; the project sees DESTINATION_NOT_ALLOWED. */
class RefusedAddress extends Error {}

/** The attempt's own deadline: its message names no address, so it is shown as it is. */
class NoAnswer extends Error {}

/**
 * Resolves like the default lookup, then refuses the connection unless every address is public: the
 * check runs on the addresses the socket will use, so a name that resolves to a public address when
 * the webhook is saved and to an internal one later (DNS rebinding) still cannot reach the cluster.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) return callback(new RefusedAddress(`${hostname} resolves to ${refused.address}, a private address`), '', 0);
    if (options.all) return (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

/** The Standard Webhooks headers for one attempt: signed now, with the library a receiver verifies with. */
export function signedHeaders(delivery: OutgoingDelivery, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Lode-Webhooks/1',
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': new Webhook(delivery.secret).sign(delivery.eventId, new Date(timestamp * 1000), delivery.body),
  };
}

/** One POST of a delivery; never throws, every outcome is an AttemptResult. */
export async function sendDelivery(delivery: OutgoingDelivery, options: SenderOptions): Promise<AttemptResult> {
  const url = new URL(delivery.url);
  const literal = literalAddress(url.hostname);
  if (!options.allowPrivate && literal !== undefined && !isPublicAddress(literal)) {
    return { kind: 'refused', error: DESTINATION_NOT_ALLOWED, detail: `${literal} is not a public address` };
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...signedHeaders(delivery, new Date()), 'content-length': String(Buffer.byteLength(delivery.body)) },
        lookup: options.allowPrivate ? undefined : publicOnlyLookup,
        timeout: options.timeoutMs,
        // A redirect is an answer (3xx, not retried): following it could lead anywhere.
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const settle = () => resolve({ kind: 'answered', status: response.statusCode ?? 0, retryAfter: headerValue(response.headers['retry-after']) });
        response.on('end', settle);
        response.on('close', settle);
        response.on('error', settle);
      },
    );
    // The socket timeout fires on inactivity; the overall deadline bounds a slowly trickling answer too.
    const deadline = setTimeout(() => request.destroy(new NoAnswer(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('timeout', () => request.destroy(new NoAnswer(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', (error) => resolve(failedAttempt(error)));
    request.on('close', () => clearTimeout(deadline));
    request.end(delivery.body);
  });
}

/**
 * A failed connection as the delivery log shows it: the error's code, never its message, since
 * Node's messages name the address connected to (connect ECONNREFUSED 10.0.0.7:80) and the log is
 * read by the project, not the operator. The message stays in `detail`, for the operator's log.
 */
function failedAttempt(error: Error & { code?: unknown }): AttemptResult {
  if (error instanceof RefusedAddress) return { kind: 'refused', error: DESTINATION_NOT_ALLOWED, detail: error.message };
  if (error instanceof NoAnswer) return { kind: 'unreachable', error: error.message };
  const reason = typeof error.code === 'string' ? ` (${error.code})` : '';
  return { kind: 'unreachable', error: `the destination is not reachable${reason}`, detail: error.message };
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
