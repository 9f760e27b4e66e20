import { TextDecoder } from 'node:util';
import type { Request, RequestHandler } from 'express';
import { errors, type AppError, type ErrorCode } from '@lode/errors';

/**
 * Checks that hold for every request, whatever its route, run before any route reads it. Each
 * refuses with a 4xx naming what is wrong (docs/api.md, "Input rules").
 */

/** Deeper than any body of ours (a commit is 3 levels); past it a body is refused, not walked or forwarded. */
export const MAX_JSON_DEPTH = 32;

/**
 * What the body reader (json-body.ts) answers: every route it is mounted on, whether or not it reads
 * a body, refuses a body it refuses, once the caller is authenticated.
 */
export const BODY_REFUSALS: readonly ErrorCode[] = ['invalid_json', 'validation_failed', 'payload_too_large', 'unsupported_media_type'];

/** The encodings the body reader inflates (its limits count the inflated bytes, so a small bomb is still 413). */
export const ACCEPTED_CONTENT_ENCODINGS = ['identity', 'gzip', 'deflate', 'br', 'zstd'] as const;
export const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * A path whose percent-encoding does not decode (`%ZZ`, a truncated or overlong UTF-8 sequence) or
 * decodes to NUL names nothing: 400 before the router tries to decode its parameters.
 */
export const refuseUndecodablePath: RequestHandler = (req, _res, next) => {
  const path = req.path;
  if (!path.includes('%')) return next();
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw errors.validation('The URL path is not valid percent-encoded UTF-8');
  }
  if (decoded.includes('\u0000')) throw errors.validation('The URL path must not contain NUL characters');
  next();
};

/**
 * The API serves no OPTIONS: express's router would answer one 200 text/plain with the path's
 * methods, a CORS preflight's shape no client of ours needs (the dashboard calls its own origin).
 * It is answered as a method no route serves, JSON 404 route_not_found, on every path and before
 * any credential is looked at, so the answer says nothing of what a path serves.
 */
export const refuseOptions: RequestHandler = (req, _res, next) => {
  if (req.method === 'OPTIONS') throw errors.routeNotFound(req.method, req.path);
  next();
};

/** Whether the request carries body bytes; an explicit `Content-Length: 0` (fetch's bodiless POST) does not. */
export function sendsBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The API reads JSON only: a body of another type would be ignored and the request answered as if
 * it had none, so it is refused with 415 instead. Unknown encodings are refused here too, with 415
 * rather than a 400 for an encoding the reader cannot name. Returns the body's content encoding.
 */
export function checkJsonBody(req: Request): string {
  if (!req.is(JSON_TYPES))
    throw errors.unsupportedMediaType(
      `Send the request body as JSON with Content-Type: application/json (got ${req.headers['content-type'] ? `"${req.headers['content-type'].slice(0, 100)}"` : 'none'})`,
    );
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (!(ACCEPTED_CONTENT_ENCODINGS as readonly string[]).includes(encoding)) {
    throw errors.unsupportedMediaType(`Content-Encoding "${encoding.slice(0, 50)}" is not accepted; use one of ${ACCEPTED_CONTENT_ENCODINGS.join(', ')}`);
  }
  return encoding;
}

/** The charset the Content-Type names, lower case; UTF-8 when it names none. */
export function charsetOf(req: Request): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
  return charset?.toLowerCase() ?? 'utf-8';
}

const notAccepted = (charset: string) => errors.unsupportedMediaType(`The charset "${charset.slice(0, 50)}" is not accepted; send UTF-8 (or UTF-16)`);

/**
 * The body's text, decoded strictly in its charset, a leading BOM dropped. A lenient decoder would
 * turn each byte that is not UTF-8 into U+FFFD and drop a UTF-16 body's odd last byte, so a path or
 * a note would be stored as something the client never sent: such a body is refused instead
 * (docs/api.md, Input rules).
 */
export function decodeBody(body: Buffer, charset: string): string {
  // JSON is Unicode text: UTF-8 or UTF-16, as the Content-Type says.
  if (!charset.startsWith('utf-')) throw notAccepted(charset);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset === 'utf-16' ? utf16ByteOrder(body) : charset, { fatal: true });
  } catch {
    // UTF-32 and UTF-7: without a strict decoder their bytes would go unchecked.
    throw notAccepted(charset);
  }
  try {
    return decoder.decode(body);
  } catch {
    throw undecodable(charset);
  }
}

const undecodable = (charset: string) =>
  errors.validation(`The request body is not valid ${charset.toUpperCase()}: send the text your charset names, unaltered`);

/**
 * The byte order of a body labelled plain `utf-16`: its BOM, else the order in which the first 100
 * characters put ASCII's zero byte (little-endian on a tie), as common decoders (iconv-lite) guess
 * it. TextDecoder's `utf-16` is always little-endian, and would read a big-endian body byte-swapped.
 */
function utf16ByteOrder(body: Buffer): 'utf-16le' | 'utf-16be' {
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  let bigEndian = 0;
  let littleEndian = 0;
  for (let i = 0; i + 1 < Math.min(body.length, 200); i += 2) {
    if (body[i] === 0 && body[i + 1] !== 0) bigEndian++;
    if (body[i] !== 0 && body[i + 1] === 0) littleEndian++;
  }
  return bigEndian > littleEndian ? 'utf-16be' : 'utf-16le';
}

/** Why a string cannot be stored as given, or undefined. */
function unstorable(text: string): string | undefined {
  // Postgres text cannot hold NUL; a lone surrogate has no UTF-8 form and would be stored as U+FFFD.
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (!text.isWellFormed()) return 'must not contain unpaired UTF-16 surrogates';
  return undefined;
}

/**
 * The first string (value or key) that cannot be stored, or a nesting too deep to accept, as a 400
 * naming its field. `path` is one stack pushed and popped on the way down: a 25,000-entry commit is
 * walked without an array per value.
 */
function findUnacceptable(value: unknown, path: (string | number)[], what: string): AppError | undefined {
  if (typeof value === 'string') {
    const why = unstorable(value);
    return why ? invalidField(what, path, why) : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (path.length >= MAX_JSON_DEPTH) return invalidField(what, path, `is nested deeper than ${MAX_JSON_DEPTH} levels`);
  const entries: Iterable<[string | number, unknown]> = Array.isArray(value) ? value.entries() : Object.entries(value);
  for (const [key, child] of entries) {
    const keyWhy = typeof key === 'string' ? unstorable(key) : undefined;
    if (keyWhy) return invalidField(what, path, `has a key that ${keyWhy}`);
    path.push(key);
    const found = findUnacceptable(child, path, what);
    path.pop();
    if (found) return found;
  }
  return undefined;
}

function invalidField(what: string, path: (string | number)[], why: string): AppError {
  const field = path.join('.');
  return errors.validation(`Invalid ${what}: ${field ? `${field}: ` : ''}${why}`, { issues: [{ path: field, message: why }] });
}

/**
 * Every string of the body and the query, keys included, must be storable text, and the body no
 * deeper than MAX_JSON_DEPTH: one walk here instead of a rule on each of the schemas' string fields,
 * and a deep body never reaches a recursive encoder further in.
 */
export function refuseUnacceptableBody(body: unknown): void {
  const found = findUnacceptable(body, [], 'body');
  if (found) throw found;
}

/** The query's half of the same rule, for every route: a query is as short as a URL, cheap to walk. */
export const refuseUnacceptableQuery: RequestHandler = (req, _res, next) => {
  const found = findUnacceptable(req.query, [], 'query');
  if (found) throw found;
  next();
};
