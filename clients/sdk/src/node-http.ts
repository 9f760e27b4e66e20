import type { ClientRequest, IncomingMessage } from 'node:http';

/**
 * node:http and node:https as their CommonJS objects. An ESM import of node:http builds its module
 * namespace by reading every export, and its WebSocket export is a getter that loads Node's whole
 * fetch implementation: that would be paid by every run of the CLI, however small the command.
 */
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

/** Connections are kept and reused: thousands of small transfers would otherwise each pay a connect. */
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** A request on the shared keep-alive connections; the caller writes its body and ends it. */
export function requestFor(url: string, method: string, headers: Record<string, string>, signal: AbortSignal | undefined): ClientRequest {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  return (secure ? https : http).request(target, { method, headers, signal, agent: agents[secure ? 'https:' : 'http:'] });
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
