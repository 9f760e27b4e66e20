import type { HttpCall } from './admin-cli-commands.ts';

/** The largest page the API serves; --all asks for it unless told otherwise, to save round trips. */
const MAX_PAGE = 200;

/** The server answered with an error status; printed as `error <status> <code>: <message>`. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The CLI cannot go on (no answer from the server, a name that matches nothing): `error: <message>`, exit 1. */
export class CliFailure extends Error {}

export interface Page<T = unknown> {
  data: T[];
  nextCursor: string | null;
}

function isPage(value: unknown): value is Page {
  const v = value as Partial<Page> | null;
  return typeof v === 'object' && v !== null && Array.isArray(v.data) && (typeof v.nextCursor === 'string' || v.nextCursor === null);
}

/** The admin HTTP API, as the operator CLI speaks it. */
export class AdminClient {
  readonly #baseUrl: string;
  readonly #token: string;

  constructor(baseUrl: string, token: string) {
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#token = token;
  }

  async send<T = unknown>(call: HttpCall): Promise<T> {
    const url = this.#baseUrl + call.path;
    let response: Response;
    try {
      response = await fetch(url, {
        method: call.method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          accept: 'application/json',
          ...(call.body ? { 'content-type': 'application/json' } : {}),
        },
        body: call.body ? JSON.stringify(call.body) : undefined,
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new CliFailure(`cannot reach ${url}: ${cause}`);
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (a proxy's error page, say): keep the text for the error line
    }
    if (!response.ok) {
      const failure = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; message?: unknown };
      throw new HttpError(
        response.status,
        typeof failure.code === 'string' ? failure.code : 'http_error',
        typeof failure.message === 'string' ? failure.message : text.slice(0, 200) || response.statusText,
      );
    }
    return body as T;
  }

  /** Follows nextCursor until the last page; keyset cursors make this safe while rows are added. */
  async sendAll<T = unknown>(call: HttpCall): Promise<Page<T>> {
    const url = new URL(call.path, 'http://cli.invalid');
    if (!url.searchParams.has('limit')) url.searchParams.set('limit', String(MAX_PAGE));
    const data: T[] = [];
    for (;;) {
      const page = await this.send({ ...call, path: url.pathname + url.search });
      if (!isPage(page)) throw new CliFailure(`unexpected list response from ${call.path}`);
      data.push(...(page.data as T[]));
      if (page.nextCursor === null) return { data, nextCursor: null };
      url.searchParams.set('cursor', page.nextCursor);
    }
  }
}
