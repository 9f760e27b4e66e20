import http from 'node:http';
import https from 'node:https';

export interface HttpResponse {
  status: number;
  body: Buffer;
}

/**
 * The one HTTP client of every timed call, baselines included, so a ratio compares servers and not
 * clients: node:http with keep-alive agents sized for the widest closed loop.
 */
export class HttpClient {
  readonly #http: http.Agent;
  readonly #https: https.Agent;

  constructor(maxSockets: number) {
    this.#http = new http.Agent({ keepAlive: true, maxSockets });
    this.#https = new https.Agent({ keepAlive: true, maxSockets });
  }

  request(url: URL, method: string, headers: Record<string, string>, body?: Buffer): Promise<HttpResponse> {
    const secure = url.protocol === 'https:';
    const send = secure ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = send(url, { method, headers, agent: secure ? this.#https : this.#http }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/** JSON calls to one base URL with fixed headers (a key and its device, or the admin token). */
export class JsonApi {
  readonly #client: HttpClient;
  readonly #base: string;
  readonly #headers: Record<string, string>;

  constructor(client: HttpClient, baseUrl: string, headers: Record<string, string>) {
    this.#client = client;
    this.#base = baseUrl.replace(/\/$/, '');
    this.#headers = headers;
  }

  /** Sends the call and returns the parsed answer; any status but `expected` is an error that names the call. */
  async call<T>(method: string, path: string, expected: number, body?: unknown): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = payload ? { ...this.#headers, 'content-type': 'application/json', 'content-length': String(payload.length) } : this.#headers;
    const res = await this.#client.request(new URL(this.#base + path), method, headers, payload);
    if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${res.body.toString('utf8', 0, 300)}`);
    return (res.body.length === 0 ? undefined : JSON.parse(res.body.toString('utf8'))) as T;
  }
}
