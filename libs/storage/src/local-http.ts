import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LOCAL_OBJECTS_ROUTE, type LocalBlobStorage } from './local-storage.ts';
import { isValidStorageKey } from './storage.ts';
import { verify } from './local-signing.ts';
import { parseRange } from './range.ts';

type Refusal = { status: number; code: string; message: string };

/**
 * Serves the local driver's presigned URLs (mounted by the gateway). Bodies stream to a temp file
 * while length, MD5 and SHA-256 are computed; the object is renamed into place only if all three
 * match what was signed, so memory stays flat for a file of any size and a bad body leaves nothing.
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
      if (req.method === 'PUT') {
        const contentLength = header(req, 'content-length');
        const contentMd5 = header(req, 'content-md5');
        const missing = REQUIRED_PUT_HEADERS.filter((name) => header(req, name) === '');
        if (missing.length > 0) return refuse(res, missingHeaders(missing));
        const sha256 = url.searchParams.get('sha256') ?? '';
        if (!verify(secret, { method: 'PUT', key, expires, contentLength, contentMd5, sha256 }, signature)) {
          return refuse(res, signatureMismatch);
        }
        if (expired(expires)) return refuse(res, urlExpired);
        return await receive(storage, req, res, { key, size: Number(contentLength), contentMd5, sha256 });
      }
      if (req.method === 'GET' || req.method === 'HEAD') {
        if (!verify(secret, { method: 'GET', key, expires }, signature)) return refuse(res, signatureMismatch);
        if (expired(expires)) return refuse(res, urlExpired);
        return await send(storage, req, res, key);
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

async function receive(
  storage: LocalBlobStorage,
  req: IncomingMessage,
  res: ServerResponse,
  expected: { key: string; size: number; contentMd5: string; sha256: string },
): Promise<void> {
  const temp = storage.incomingPath(randomUUID());
  const md5 = createHash('md5');
  const sha = createHash('sha256');
  let received = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > expected.size) return done(new Error('body longer than Content-Length'));
      md5.update(chunk);
      sha.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(req, measure, createWriteStream(temp));
  } catch {
    await rm(temp, { force: true });
    return refuse(res, { status: 400, code: 'incomplete_body', message: 'The body was cut short or longer than declared' });
  }
  const refusal =
    received !== expected.size
      ? { status: 400, code: 'incomplete_body', message: `Received ${received} of ${expected.size} bytes` }
      : md5.digest('base64') !== expected.contentMd5
        ? { status: 400, code: 'bad_digest', message: 'The body does not match Content-MD5' }
        : sha.digest('hex') !== expected.sha256
          ? { status: 400, code: 'sha256_mismatch', message: 'The body does not match the declared SHA-256' }
          : undefined;
  if (refusal) {
    await rm(temp, { force: true });
    return refuse(res, refusal);
  }
  const target = storage.objectPath(expected.key);
  await mkdir(path.dirname(target), { recursive: true });
  await rename(temp, target);
  await writeFile(storage.shaPath(expected.key), expected.sha256);
  res.writeHead(200, { ETag: `"${Buffer.from(expected.contentMd5, 'base64').toString('hex')}"`, 'Content-Length': '0' });
  res.end();
}

async function send(storage: LocalBlobStorage, req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
  const file = storage.objectPath(key);
  const info = await stat(file).catch(() => null);
  if (!info) return refuse(res, { status: 404, code: 'no_such_key', message: 'No such object' });
  const range = parseRange(header(req, 'range'), info.size);
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${info.size}`);
    return refuse(res, { status: 416, code: 'invalid_range', message: 'Range not satisfiable' });
  }
  const { start, end } = range ?? { start: 0, end: info.size - 1 };
  res.writeHead(range ? 206 : 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(Math.max(0, end - start + 1)),
    'Accept-Ranges': 'bytes',
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${info.size}` } : {}),
  });
  if (req.method === 'HEAD' || info.size === 0) return void res.end();
  await pipeline(createReadStream(file, { start, end }), res);
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
  res.writeHead(refusal.status, { 'Content-Type': 'application/json', ...(drain ? {} : { Connection: 'close' }) });
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
