import type { IncomingMessage } from 'node:http';
import type { LodeClient } from './client.ts';
import { asNetworkError, LodeNetworkError } from './errors.ts';
import { sleep } from './retry.ts';
import type { PublicEvent, PublicEventType } from './types.ts';

export interface FeedOptions {
  /** Only these types (default: every type of the catalogue). */
  types?: PublicEventType[];
  /** Resume after this position: the `id` of the last message handled, sent as `Last-Event-ID`. */
  lastEventId?: number;
  signal?: AbortSignal;
}

/**
 * A message of the live feed. `id` is its position in the project's feed: keep the last one handled
 * to resume from it (`lastEventId`) in a later process.
 */
export type FeedMessage =
  | { kind: 'event'; id: number; event: PublicEvent }
  /** The events after the position asked for are past the feed's retention: reload what you show; the feed goes on after `id`. */
  | { kind: 'reset'; id: number };

/** What the server asks for (`retry:`) unless it says otherwise. */
const RECONNECT_MS = 3000;
/** The server writes at least a comment every 10 s: a connection silent this long is dead, though no error says so. */
const SILENCE_MS = 35_000;

/**
 * Follows the project's live feed (docs/api.md, Live feed) until `signal` aborts. A connection that
 * drops or goes silent is opened again after the server's `retry:` delay, with the last position seen
 * as `Last-Event-ID`, so nothing is missed or repeated. A refusal (4xx) ends the feed with its error;
 * opening retries 429 and 503 as every call does.
 */
export async function* followEvents(client: LodeClient, options: FeedOptions = {}): AsyncGenerator<FeedMessage> {
  const { signal } = options;
  let lastEventId = options.lastEventId;
  let reconnectMs = RECONNECT_MS;
  for (;;) {
    const connection = new AbortController();
    const stop = () => connection.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    let silence = setTimeout(() => connection.abort(), SILENCE_MS);
    try {
      const response = await client.transport.request('GET', await client.projectPath('/events', { signal }), undefined, {
        signal: connection.signal,
        query: { types: options.types?.join(',') },
        headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }) },
      });
      for await (const block of serverSentEvents(response)) {
        // Not counted while the caller handles a message: only the server's silence is.
        clearTimeout(silence);
        if (block.retry !== undefined) reconnectMs = block.retry;
        if (block.id !== undefined && block.data !== undefined) {
          lastEventId = Number(block.id);
          yield block.event === 'reset' ? { kind: 'reset', id: lastEventId } : { kind: 'event', id: lastEventId, event: JSON.parse(block.data) as PublicEvent };
        }
        silence = setTimeout(() => connection.abort(), SILENCE_MS);
      }
    } catch (error) {
      // A dropped or silent connection is followed again; the caller's abort (its reason) and the server's refusals are not.
      if (signal?.aborted) throw signal.reason;
      if (!connection.signal.aborted && !(error instanceof LodeNetworkError)) throw error;
    } finally {
      // Also when the caller stops reading (break): the response's socket is let go.
      connection.abort();
      clearTimeout(silence);
      signal?.removeEventListener('abort', stop);
    }
    await sleep(reconnectMs, signal);
  }
}

interface EventBlock {
  id?: string;
  event: string;
  data?: string;
  retry?: number;
}

/**
 * The blocks of a `text/event-stream` body as the HTML spec's parser reads them: fields up to a blank
 * line, `data` lines joined with newlines, comments (`:`) skipped. Lines end with LF or CRLF. A block
 * of comments only (the server's keep-alive) is yielded too, empty: it tells the connection is alive.
 */
async function* serverSentEvents(body: IncomingMessage): AsyncGenerator<EventBlock> {
  let block: EventBlock = { event: 'message' };
  let text = '';
  body.setEncoding('utf8');
  for await (const piece of droppedAsNetworkErrors(body)) {
    text += piece;
    let end: number;
    while ((end = text.indexOf('\n')) >= 0) {
      const line = text.slice(0, end).replace(/\r$/, '');
      text = text.slice(end + 1);
      if (line === '') {
        yield block;
        block = { event: 'message' };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') block.data = block.data === undefined ? value : `${block.data}\n${value}`;
      else if (field === 'id') block.id = value;
      else if (field === 'event') block.event = value;
      else if (field === 'retry' && /^\d+$/.test(value)) block.retry = Number(value);
    }
  }
}

/** The body's pieces; a connection cut in the middle of it is a LodeNetworkError, as one that never opened is. */
async function* droppedAsNetworkErrors(body: IncomingMessage): AsyncGenerator<string> {
  try {
    for await (const piece of body) yield piece as string;
  } catch (error) {
    throw asNetworkError(error);
  }
}
