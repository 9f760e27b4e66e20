import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** Node's parser refusals that have a status of their own; any other unparsable request is 400. */
const STATUS_BY_PARSER_CODE: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'headers_too_large', message: 'The request line and headers exceed 16 KB' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, code: 'payload_too_large', message: 'Chunk extensions are too large' },
};
const MALFORMED = { status: 400, code: 'validation_failed', message: 'The request is not valid HTTP/1.1' };

/**
 * Requests Node's HTTP parser refuses never reach a route: by default Node answers them with a bare
 * status line and no body. Every client error of ours is JSON `{ code, message }`, so these are too.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A peer that reset or timed out has nobody left to read an answer.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = STATUS_BY_PARSER_CODE[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify({ code: refusal.code, message: refusal.message });
    // An answer to HEAD has no body: a client would read ours as the start of a next response.
    const rawPacket = (error as { rawPacket?: unknown }).rawPacket;
    const toHead = Buffer.isBuffer(rawPacket) && rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${toHead ? '' : body}`,
    );
  });
}
