import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Surface } from './catalogue.ts';

/** One request exactly as it goes on the wire: node:http sends the target's bytes as given (fetch would normalise them). */
export interface FuzzRequest {
  surface: Surface;
  method: string;
  /** Path and query, percent-encoded (or deliberately not). */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Sent with Transfer-Encoding: chunked instead of Content-Length. */
  chunked: boolean;
  /** The catalogue route it was built from (`METHOD /template`), or `unmatched`. */
  route: string;
  /** What was changed from a valid request, for the report. */
  mutation: string;
}

export type Outcome = { status: number; headers: IncomingHttpHeaders; body: Buffer } | { error: string };

export interface Sender {
  send(request: FuzzRequest, requestId: string): Promise<Outcome>;
  close(): void;
}

/**
 * Sends over keep-alive connections to the API and ops ports. A request that gets no answer within
 * `timeoutMs` is reported as such: the bound only keeps a hung server from hanging the test, far
 * above any answer a healthy server gives, so a slow machine does not trip it.
 */
export function createSender(ports: Record<Surface, number>, options: { concurrency: number; timeoutMs: number }): Sender {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  return {
    close: () => agent.destroy(),
    send: (request, requestId) => sendOnce(request, requestId, true),
  };

  function sendOnce(request: FuzzRequest, requestId: string, mayRetry: boolean): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      let answered = false;
      const done = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      const headers: Record<string, string> = { 'x-request-id': requestId };
      for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
      // The framing always matches the bytes sent (a signed Content-Length that does not is refused by
      // the signature, not by a hang), and is explicit: Node frames a GET's or DELETE's body only when told how.
      delete headers['content-length'];
      if (request.body) Object.assign(headers, request.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(request.body.length) });
      let req;
      try {
        req = httpRequest({ host: '127.0.0.1', port: ports[request.surface], method: request.method, path: request.target, headers, agent });
      } catch (error) {
        done({ error: `the fuzzer built a request Node refuses to send: ${(error as Error).message}` });
        return;
      }
      req.setTimeout(options.timeoutMs, () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed as idle just as this request went out on it: the
        // server never saw the request. Sent again on a new connection, as Node's docs advise.
        if (mayRetry && req.reusedSocket && error.code === 'ECONNRESET' && !answered && !settled) {
          settled = true;
          resolve(sendOnce(request, requestId, false));
          return;
        }
        done({ error: error.code ? `${error.code}: ${error.message}` : error.message });
      });
      req.on('response', (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('close', () => {
          if (!res.complete) done({ error: `response cut short after ${Buffer.concat(chunks).length} bytes (status ${res.statusCode})` });
        });
      });
      if (request.body && request.chunked) req.write(request.body);
      req.end(request.body && !request.chunked ? request.body : undefined);
    });
  }
}
