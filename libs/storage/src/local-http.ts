import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { availableParallelism } from 'node:os';
import { pipeline } from 'node:stream/promises';
import type { Placement, WriterMessage, WriterReply } from './body-writer-thread.ts';
import { sealedHeader } from './local-layout.ts';
import { LOCAL_OBJECTS_ROUTE, type LocalBlobStorage } from './local-storage.ts';
import { attachmentDisposition } from './content-disposition.ts';
import { isValidStorageKey, OBJECT_CONTENT_TYPE } from './storage.ts';
import { partField, verify } from './local-signing.ts';
import { isPartNumber } from './multipart-rules.ts';
import { parseRange } from './range.ts';
import { PooledWorker, ThreadPool } from './thread-pool.ts';

export type Refusal = { status: number; code: string; message: string };

/**
 * Serves the local driver's presigned URLs (mounted by the gateway). Bodies stream to a temp file
 * while length, MD5 and SHA-256 are computed (in a worker thread, body-writer-thread.ts); the object is
 * renamed into place, sealed with its SHA-256, only if all three match what was signed, so memory
 * stays flat for a file of any size and a bad body leaves nothing. A part of a multipart upload
 * (a URL with an upload id) is checked for length and MD5 only and goes into its upload's folder.
 */
export function createLocalObjectHandler(storage: LocalBlobStorage) {
  const secret = storage.options.secret;
  return async function handleObjectRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://local');
      const key = decodedKey(url.pathname.slice(LOCAL_OBJECTS_ROUTE.length));
      const expires = Number(url.searchParams.get('expires'));
      const signature = url.searchParams.get('signature') ?? '';
      if (!isValidStorageKey(key)) return refuse(res, { status: 400, code: 'invalid_key', message: 'Invalid object key' });
      if (req.method === 'PUT' && url.searchParams.has('uploadId')) return await receivePart(storage, req, res, url, key);
      if (req.method === 'PUT') {
        const contentLength = header(req, 'content-length');
        const md5Signed = url.searchParams.get('md5') !== 'none';
        const contentMd5 = md5Signed ? header(req, 'content-md5') : '';
        const missing = (md5Signed ? REQUIRED_PUT_HEADERS : ['content-length']).filter((name) => header(req, name) === '');
        if (missing.length > 0) return refuse(res, missingHeaders(missing));
        const sha256 = url.searchParams.get('sha256') ?? '';
        if (!verify(secret, { method: 'PUT', key, expires, contentLength, contentMd5, sha256 }, signature)) {
          return refuse(res, signatureMismatch);
        }
        if (expired(expires)) return refuse(res, urlExpired);
        return await receive(req, res, {
          temp: storage.incomingPath(randomUUID()),
          target: storage.sealedPath(key),
          header: sealedHeader(sha256),
          size: Number(contentLength),
          contentMd5,
          sha256,
        });
      }
      if (req.method === 'GET' || req.method === 'HEAD') {
        const filename = url.searchParams.get('filename') ?? undefined;
        if (!verify(secret, { method: 'GET', key, expires, filename }, signature)) return refuse(res, signatureMismatch);
        if (expired(expires)) return refuse(res, urlExpired);
        return await send(storage, req, res, key, filename);
      }
      res.setHeader('Allow', 'GET, HEAD, PUT');
      return refuse(res, { status: 405, code: 'method_not_allowed', message: 'Use GET, HEAD or PUT' });
    } catch {
      if (!res.headersSent) refuse(res, { status: 500, code: 'internal', message: 'Storage error' });
      else res.destroy();
    }
  };
}

/** What a presigned PUT signs besides the URL: without them the signature cannot match, so say which is missing. */
const REQUIRED_PUT_HEADERS = ['content-length', 'content-md5'];
const missingHeaders = (names: string[]): Refusal => ({
  status: 400,
  code: 'missing_header',
  message: `The upload must send the required header${names.length > 1 ? 's' : ''} ${names.map((n) => (n === 'content-md5' ? 'Content-MD5' : 'Content-Length')).join(' and ')} (initiate's requiredHeaders, verbatim)`,
});

/** A key that is not valid percent-encoding is no key of ours (`isValidStorageKey` refuses ''). */
function decodedKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return '';
  }
}

const signatureMismatch: Refusal = { status: 403, code: 'signature_mismatch', message: 'The URL signature does not match the request' };
const urlExpired: Refusal = { status: 403, code: 'url_expired', message: 'The URL has expired' };

const noSuchUpload: Refusal = { status: 404, code: 'no_such_upload', message: 'The multipart upload was completed or aborted' };

/**
 * A part's PUT: its URL signs the upload id and part number besides length and MD5 (a part has no
 * SHA-256 of its own: the object's is computed when the upload is completed). The upload must be
 * open and for this key before a byte is read, and still open when the part is renamed into it.
 */
async function receivePart(storage: LocalBlobStorage, req: IncomingMessage, res: ServerResponse, url: URL, key: string): Promise<void> {
  const uploadId = url.searchParams.get('uploadId') ?? '';
  const partNumber = url.searchParams.get('partNumber') ?? '';
  const expires = Number(url.searchParams.get('expires'));
  const missing = REQUIRED_PUT_HEADERS.filter((name) => header(req, name) === '');
  if (missing.length > 0) return refuse(res, missingHeaders(missing));
  const contentLength = header(req, 'content-length');
  const contentMd5 = header(req, 'content-md5');
  const part = partField(uploadId, partNumber);
  if (!verify(storage.options.secret, { method: 'PUT', key, expires, contentLength, contentMd5, part }, url.searchParams.get('signature') ?? '')) {
    return refuse(res, signatureMismatch);
  }
  if (expired(expires)) return refuse(res, urlExpired);
  // Signed, so presignPart checked them; checked again as they name files.
  const number = /^[1-9][0-9]*$/.test(partNumber) ? Number(partNumber) : NaN;
  if (!isPartNumber(number) || !/^[A-Za-z0-9+/]{22}==$/.test(contentMd5)) return refuse(res, { status: 400, code: 'invalid_part', message: 'Invalid part' });
  if ((await storage.multipartOwner(uploadId)) !== key) return refuse(res, noSuchUpload);
  return receive(req, res, {
    temp: storage.incomingPath(randomUUID()),
    target: storage.partPath(uploadId, number, contentMd5),
    header: '',
    size: Number(contentLength),
    contentMd5,
    sha256: undefined,
    part: number,
  });
}

async function receive(req: IncomingMessage, res: ServerResponse, placement: Placement): Promise<void> {
  const outcome = await writers().receive(req, placement);
  if (outcome === 'incomplete') return refuse(res, { status: 400, code: 'incomplete_body', message: 'The body was cut short or longer than declared' });
  if (outcome !== 'stored') return refuse(res, outcome);
  const etag = placement.contentMd5 === '' ? {} : { ETag: `"${Buffer.from(placement.contentMd5, 'base64').toString('hex')}"` };
  res.writeHead(200, { ...etag, 'Content-Length': '0' });
  res.end();
}

type Stored = 'stored' | 'incomplete' | Refusal;

/** A large body's bytes go to its writer in pieces of this size. */
const PIECE = 1024 * 1024;
/** A body up to this size is gathered here and handed to a writer in one message (in one piece's buffer). */
const WHOLE_MAX = PIECE;
/** Bytes handed to a writer and not yet written before the request is paused: memory stays flat for any size. */
const PAUSE_ABOVE = 8 * 1024 * 1024;

/**
 * The writers: worker threads (body-writer-thread.ts) that hash (MD5 and SHA-256), write, check and
 * rename each body into place. Their synchronous file calls block only themselves, so the gateway's
 * event loop, which also serves the API, spends a message or two per small body instead of hashing
 * it and making round trips to libuv's thread pool (open, write, close, mkdir, rename).
 */
const WRITER = new URL('./body-writer-thread.ts', import.meta.url);

interface Upload {
  onAck: (bytes: number) => void;
  onDone: (reply: WriterReply) => void;
}

/** One worker and the uploads it has under way. */
class Writer extends PooledWorker<Upload> {
  constructor(onLost: (writer: Writer) => void) {
    super(
      WRITER,
      'storage writer',
      (upload, error) => upload.onDone({ type: 'done', id: -1, error: error.message }),
      () => onLost(this),
    );
    this.worker.on('message', (reply: WriterReply) => {
      if (reply.buffer) returnBuffer(reply.buffer);
      const upload = this.inHand(reply.id);
      if (!upload) return;
      if (reply.type === 'ack') return upload.onAck(reply.bytes ?? 0);
      this.forget(reply.id);
      upload.onDone(reply);
    });
  }

  /** Hands it work, moving the body's buffer, if the message carries one, to the thread. */
  send(message: WriterMessage): void {
    this.worker.postMessage(message, 'buffer' in message ? [message.buffer] : []);
  }
}

class WriterPool {
  readonly #writers: ThreadPool<Writer>;
  #nextId = 0;

  constructor(size: number) {
    this.#writers = new ThreadPool(size, (lost) => new Writer(lost));
  }

  /** Hands the body to a writer as it arrives; 'incomplete' for a body cut short or longer than signed. */
  receive(req: IncomingMessage, p: Placement): Promise<Stored> {
    const writer = this.#writers.pick();
    const id = this.#nextId++;
    const whole = p.size <= WHOLE_MAX;
    return new Promise<Stored>((resolve, reject) => {
      let received = 0;
      let unwritten = 0;
      let settled = false;
      const pieces: Buffer[] = [];
      const settle = (outcome: Stored | Error) => {
        if (settled) return;
        settled = true;
        req.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const abandon = () => {
        if (writer.forget(id) && !whole) writer.send({ type: 'abort', id });
        settle('incomplete');
      };
      writer.track(id, {
        onAck: (bytes) => {
          unwritten -= bytes;
          if (unwritten <= PAUSE_ABOVE / 2 && req.isPaused() && !settled) req.resume();
        },
        onDone: (reply) => settle(reply.error !== undefined ? new Error(reply.error) : (reply.outcome ?? new Error('storage writer answered nothing'))),
      });
      // A large body goes over in pieces of PIECE bytes, copied out of the socket's buffers (which may
      // hold other bytes) and moved to the worker: a sixteenth of the messages 64 KiB reads would make.
      let piece = whole ? new Uint8Array(0) : new Uint8Array(takeBuffer());
      let filled = 0;
      const sendPiece = () => {
        writer.send({ type: 'data', id, buffer: piece.buffer, length: filled });
        unwritten += filled;
        piece = new Uint8Array(takeBuffer());
        filled = 0;
        if (unwritten > PAUSE_ABOVE) req.pause();
      };
      const onData = (chunk: Buffer) => {
        received += chunk.length;
        // Longer than signed: refused without reading the rest.
        if (received > p.size) return abandon();
        if (whole) return void pieces.push(chunk);
        for (let at = 0; at < chunk.length;) {
          const n = Math.min(chunk.length - at, PIECE - filled);
          piece.set(chunk.subarray(at, at + n), filled);
          filled += n;
          at += n;
          if (filled === PIECE) sendPiece();
        }
      };
      const onEnd = () => {
        if (received !== p.size) return abandon();
        if (!whole) {
          if (filled > 0) sendPiece();
          return writer.send({ type: 'end', id });
        }
        const body = new Uint8Array(takeBuffer(received), 0, received);
        let at = 0;
        for (const part of pieces) {
          body.set(part, at);
          at += part.length;
        }
        writer.send({ type: 'whole', id, p, buffer: body.buffer, length: received });
      };
      const onClose = () => {
        if (!req.complete) abandon();
      };
      if (!whole) writer.send({ type: 'open', id, p });
      req.on('data', onData).on('end', onEnd).on('close', onClose).on('error', onClose);
    });
  }
}

/**
 * Buffers that carry bodies to the writers and come back with their answers. Fresh ones each time
 * stayed in the workers until their garbage collectors ran, tens of MiB per push of 2,000 small
 * files. At most BUFFERS_KEPT of each size are kept between bursts.
 */
const BUFFERS_KEPT = 64;
/**
 * The sizes of those buffers: a small body travels in a small one. Each transfer of a buffer costs
 * the receiving thread its whole size in external memory, and the collections that come with it:
 * a small body in a large buffer would pay for all of it on the event loop.
 */
const BUFFER_SIZES = [64 * 1024, PIECE];
const spareBuffers = new Map(BUFFER_SIZES.map((size) => [size, [] as ArrayBuffer[]]));

/** A kept buffer, or a new one, of the smallest size that holds `bytes`. */
function takeBuffer(bytes = PIECE): ArrayBuffer {
  const size = BUFFER_SIZES.find((candidate) => candidate >= bytes) ?? PIECE;
  return spareBuffers.get(size)?.pop() ?? new ArrayBuffer(size);
}

function returnBuffer(buffer: ArrayBuffer): void {
  const kept = spareBuffers.get(buffer.byteLength);
  if (kept && kept.length < BUFFERS_KEPT) kept.push(buffer);
}

let pool: WriterPool | undefined;

/** Made on the first PUT, one writer per core (at most 4): a gateway that never receives a body starts no thread. */
function writers(): WriterPool {
  pool ??= new WriterPool(Math.max(1, Math.min(availableParallelism(), 4)));
  return pool;
}

async function send(storage: LocalBlobStorage, req: IncomingMessage, res: ServerResponse, key: string, filename: string | undefined): Promise<void> {
  const stored = await storage.locate(key);
  if (!stored) return refuse(res, { status: 404, code: 'no_such_key', message: 'No such object' });
  const { size, offset } = stored;
  const range = parseRange(header(req, 'range'), size);
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${size}`);
    return refuse(res, { status: 416, code: 'invalid_range', message: 'Range not satisfiable' });
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  res.writeHead(range ? 206 : 200, {
    'Content-Type': OBJECT_CONTENT_TYPE,
    // An uploader chose these bytes: a browser saves them, never renders them as a page of this origin.
    'Content-Disposition': attachmentDisposition(filename),
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': String(Math.max(0, end - start + 1)),
    'Accept-Ranges': 'bytes',
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === 'HEAD' || size === 0) return void res.end();
  await pipeline(createReadStream(stored.file, { start: offset + start, end: offset + end }), res);
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

function expired(expires: number): boolean {
  return !Number.isFinite(expires) || expires * 1000 < Date.now();
}

/**
 * A refused body up to this size is read to its end and dropped, so the client, still sending,
 * gets the answer instead of a reset connection; a larger one is cut off rather than read.
 */
const MAX_DISCARDED_BYTES = 64 * 1024 * 1024;

function refuse(res: ServerResponse, refusal: Refusal): void {
  const req = res.req;
  const unread = !req.complete && !req.destroyed;
  const drain = unread && Number(req.headers['content-length'] ?? 0) <= MAX_DISCARDED_BYTES;
  res.writeHead(refusal.status, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', ...(drain ? {} : { Connection: 'close' }) });
  res.end(JSON.stringify({ code: refusal.code, message: refusal.message }));
  if (drain) discard(req);
}

function discard(req: IncomingMessage): void {
  let received = 0;
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_DISCARDED_BYTES) req.destroy();
  });
  req.resume();
}
