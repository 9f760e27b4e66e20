import { createHash } from 'node:crypto';
import { recordResponseSecrets } from './response-secrets.ts';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A thin fetch wrapper that speaks the API as a client would (JSON in, JSON out). */
/** The verbs every test client offers, over its own request(). */
export abstract class ApiVerbs {
  abstract request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;

  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body ?? {}, headers);
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }

  delete<T = any>(path: string, body?: unknown) {
    return this.request<T>('DELETE', path, body);
  }
}

/**
 * A response as tests read it: parsed JSON, or the text when it is not JSON, so an assertion shows
 * it. Every test client reads its responses here, so every secret one hands out is recorded for
 * the check that no log of the run holds it.
 */
export async function readResponse<T>(response: Response): Promise<ApiResponse<T>> {
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  recordResponseSecrets(text, parsed, response.headers);
  return { status: response.status, body: parsed as T, headers: response.headers };
}

export class ApiClient extends ApiVerbs {
  readonly baseUrl: string;
  readonly headers: Record<string, string>;

  constructor(baseUrl: string, headers: Record<string, string> = {}) {
    super();
    this.baseUrl = baseUrl;
    this.headers = headers;
  }

  withHeaders(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.baseUrl, { ...this.headers, ...headers });
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const response = await fetch(this.baseUrl + path, {
      method,
      headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return readResponse<T>(response);
  }
}

/** What a client sends to initiate an upload of these bytes. */
export function describeContent(bytes: Buffer) {
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
    contentMd5: createHash('md5').update(bytes).digest('base64'),
  };
}
