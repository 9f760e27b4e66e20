import type { ClientRequest, IncomingMessage } from 'node:http';

/**
 * node:http and node:https as their CommonJS objects. An ESM import of node:http builds its module
 * namespace by reading every export, and its WebSocket export is a getter that loads Node's whole
 * fetch implementation: that would be paid by every run of the CLI, however small the command.
 */
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

/**
 * Node's own switch for honouring HTTP_PROXY, HTTPS_PROXY and NO_PROXY: its global agents and
 * fetch follow them when it is on, and so do ours.
 */
const proxyEnv = process.env.NODE_USE_ENV_PROXY === '1' || process.execArgv.includes('--use-env-proxy') ? process.env : undefined;

/** Connections are kept and reused: thousands of small transfers would otherwise each pay a connect. */
const agents = {
  'http:': new http.Agent({ keepAlive: true, proxyEnv }),
  'https:': new https.Agent({ keepAlive: true, proxyEnv }),
};

/** A connection not made within this is given up (a host that drops packets): the caller retries it. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A request on the shared keep-alive connections; the caller writes its body and ends it. A new
 * connection not made within 10 s ends the request with an ETIMEDOUT error: a socket's own timeout
 * only counts once it is connected.
 */
export function requestFor(url: string, method: string, headers: Record<string, string>, signal: AbortSignal | undefined): ClientRequest {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const request = (secure ? https : http).request(target, { method, headers, signal, agent: agents[secure ? 'https:' : 'http:'] });
  request.once('socket', (socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(() => request.destroy(timedOut(`no connection to ${target.host} within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
    const done = () => clearTimeout(timer);
    socket.once('connect', done);
    request.once('close', done);
  });
  return request;
}

/** The error of a request given up on (no connection made, or no answer in time): a system error, as a refused connection's is. */
export function timedOut(message: string): Error {
  return Object.assign(new Error(message), { code: 'ETIMEDOUT' });
}

export function answerOf(request: ClientRequest): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
}

/** The whole body as UTF-8 text; a character split between two pieces is decoded whole. */
export async function readText(response: IncomingMessage): Promise<string> {
  response.setEncoding('utf8');
  let text = '';
  for await (const piece of response) text += piece as string;
  return text;
}
