import { eventually } from './receiver.ts';

export interface FeedEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** A Server-Sent Events client on fetch, keeping every event it read (EventSource cannot send the key header). */
export class FeedClient {
  readonly events: FeedEvent[] = [];
  readonly comments: string[] = [];
  status = 0;
  contentType = '';
  /** True once the server ended the response (the client did not close it). */
  ended = false;
  #closed = false;
  readonly #abort = new AbortController();
  #reading: Promise<void> = Promise.resolve();

  static async open(url: string, headers: Record<string, string>): Promise<FeedClient> {
    const client = new FeedClient();
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: client.#abort.signal });
    client.status = response.status;
    client.contentType = response.headers.get('content-type') ?? '';
    if (response.ok && response.body) client.#reading = client.#read(response.body);
    else await response.body?.cancel();
    return client;
  }

  /** Waits for an event of `type` (and matching `where`) and answers it parsed. */
  async next<T = { id: string; type: string; projectId: string; data: Record<string, unknown> }>(
    type: string,
    where: (data: T) => boolean = () => true,
  ): Promise<T & { feedId: string | undefined }> {
    return eventually(`a ${type} event on the feed`, () => {
      const found = this.events.find((e) => e.event === type && where(JSON.parse(e.data) as T));
      return found && { ...(JSON.parse(found.data) as T), feedId: found.id };
    });
  }

  /** Waits for the server to end the feed, and answers the data of its `closed` event. */
  async closing<T = Record<string, unknown>>(): Promise<T> {
    await eventually('the server closing the feed', () => this.ended);
    const closed = this.events.find((e) => e.event === 'closed');
    if (!closed) throw new Error('The feed ended without a closed event');
    return JSON.parse(closed.data) as T;
  }

  get lastId(): string | undefined {
    return this.events.at(-1)?.id;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#abort.abort();
    await this.#reading.catch(() => undefined);
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.#parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
      this.ended = !this.#closed;
    } catch (error) {
      if (!this.#closed) throw error;
    }
  }

  #parse(block: string): void {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
    }
    if (fields.has('data')) this.events.push({ id: fields.get('id'), event: fields.get('event') ?? 'message', data: fields.get('data') ?? '' });
  }
}
