import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Node's parser refusals that have a status of their own; any other unparsable request is 400. */
const STATUS_BY_PARSER_CODE: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'headers_too_large', message: 'The request line and headers exceed 16 KB' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, code: 'payload_too_large', message: 'Chunk extensions are too large' },
};
const MALFORMED = { status: 400, code: 'validation_failed', message: 'The request is not valid HTTP/1.1' };

/**
 * What a connection being closed still reads and drops, and for how long, so that a client still
 * sending reads the answer instead of a reset: closing with unread bytes makes the kernel send a
 * reset, which fails the client's next write and can discard the answer before it is read.
 */
const LINGER_MAX_BYTES = 64 * 1024 * 1024;
const LINGER_MS = 10_000;

/**
 * Requests Node's HTTP parser refuses never reach a route: by default Node answers them with a bare
 * status line and no body, then destroys the connection. Every client error of ours is JSON
 * `{ code, message }`, so these are too, and the connection is closed gracefully.
 *
 * Bytes that fail to parse while a request is still being answered ran past that request's body (a
 * client sending more than its Content-Length): that request is answered first, as it was framed,
 * and the connection closed after it, so the client reads that answer.
 */
export function answerClientErrorsAsJson(server: Server): void {
  /** Per connection: its responses not yet sent, and how much it dropped once it started closing. */
  const connections = new WeakMap<Duplex, { unanswered: Set<ServerResponse>; dropped: number | undefined }>();
  const stateOf = (socket: Duplex) => {
    let state = connections.get(socket);
    if (!state) connections.set(socket, (state = { unanswered: new Set(), dropped: undefined }));
    return state;
  };
  server.on('request', (req, res) => {
    const { unanswered } = stateOf(req.socket);
    unanswered.add(res);
    res.once('close', () => unanswered.delete(res));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const state = stateOf(socket);
    const rawPacket = (error as { rawPacket?: unknown }).rawPacket;
    // The parser stays failed: each later chunk comes back here, and is dropped up to the bound.
    if (state.dropped !== undefined) {
      state.dropped += Buffer.isBuffer(rawPacket) ? rawPacket.length : 0;
      if (state.dropped > LINGER_MAX_BYTES) socket.destroy();
      return;
    }
    // A peer that reset or timed out has nobody left to read an answer; nor has one that ended its
    // side in the middle of a body (a killed client's FIN): kept open, it would hold the server's
    // close until the request timeout.
    if (error.code === 'ECONNRESET' || error.code === 'HPE_INVALID_EOF_STATE' || !socket.writable) {
      socket.destroy();
      return;
    }
    state.dropped = 0;
    // Node closes a connection once a response that says `Connection: close` is sent, at once, as
    // destroySoon does: here it closes gracefully instead.
    (socket as Duplex & { destroySoon?: () => void }).destroySoon = () => closeGracefully(socket);
    if (state.unanswered.size > 0) {
      // The client must not send another request on it; an answer already under way says so by the close.
      for (const res of state.unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
      return;
    }
    const refusal = STATUS_BY_PARSER_CODE[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify({ code: refusal.code, message: refusal.message });
    // An answer to HEAD has no body: a client would read ours as the start of a next response.
    const toHead = Buffer.isBuffer(rawPacket) && rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${toHead ? '' : body}`,
    );
    closeGracefully(socket);
  });
}

/**
 * Half-closes: the answer goes out, then the end of the stream, while what the client still sends is
 * read and dropped (counted against LINGER_MAX_BYTES above) until it closes its side or LINGER_MS
 * pass; only then is the connection destroyed.
 */
function closeGracefully(socket: Duplex): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
}
