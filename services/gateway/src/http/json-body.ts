import { finished, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createZstdDecompress } from 'node:zlib';
import type { Request, RequestHandler } from 'express';
import { errors } from '@lode/errors';
import { charsetOf, checkJsonBody, decodeBody, refuseUnacceptableBody, sendsBody } from './request-guards.ts';

/**
 * The most a body may inflate per compressed byte. JSON of ids, hashes and paths compresses a few
 * times, a decompression bomb a thousand times: past this the body is refused before it is inflated
 * further, so a small request cannot make the gateway inflate and parse megabytes.
 */
export const MAX_COMPRESSION_RATIO = 100;
/** Below this many inflated bytes the ratio is not checked: such a body is cheap however it was compressed. */
const RATIO_FREE_BYTES = 64 * 1024;

function decoderFor(encoding: string): Transform | undefined {
  switch (encoding) {
    case 'gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    case 'zstd':
      return createZstdDecompress();
    default:
      return undefined;
  }
}

/**
 * The body's bytes, inflated, read until they pass `limit` or inflate past MAX_COMPRESSION_RATIO.
 * A refusal waits for the rest of the body to arrive, unread and not inflated, so a client still
 * sending receives the answer instead of a reset connection.
 */
function readBody(req: Request, encoding: string, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const decoder = decoderFor(encoding);
    const chunks: Buffer[] = [];
    let raw = 0;
    let inflated = 0;
    let settled = false;

    const stopListening = () => {
      req.off('data', onRawData);
      req.off('end', onRawEnd);
      req.off('error', onAborted);
      req.off('close', onClose);
    };
    const refuse = (error: Error) => {
      if (settled) return;
      settled = true;
      stopListening();
      decoder?.destroy();
      if (req.readableEnded) return reject(error);
      req.resume();
      finished(req, () => reject(error));
    };
    const succeed = () => {
      if (settled) return;
      settled = true;
      stopListening();
      resolve(Buffer.concat(chunks, inflated));
    };
    const take = (chunk: Buffer) => {
      if (settled) return;
      inflated += chunk.length;
      if (inflated > limit) return refuse(errors.payloadTooLarge(`${limit}-byte`));
      if (decoder && inflated > RATIO_FREE_BYTES && inflated > raw * MAX_COMPRESSION_RATIO) return refuse(errors.payloadTooCompressed(MAX_COMPRESSION_RATIO));
      chunks.push(chunk);
    };
    function onRawData(chunk: Buffer) {
      raw += chunk.length;
      if (!decoder) return take(chunk);
      // The socket waits while the decoder catches up: bytes it has not inflated are not buffered without bound.
      if (!decoder.write(chunk)) req.pause();
    }
    function onRawEnd() {
      if (decoder) decoder.end();
      else succeed();
    }
    function onAborted() {
      refuse(errors.validation('The request body ended before it was complete'));
    }
    function onClose() {
      if (!req.complete) onAborted();
    }

    const declared = Number(req.headers['content-length']);
    if (!decoder && declared > limit) return refuse(errors.payloadTooLarge(`${limit}-byte`));
    if (decoder) {
      decoder.on('data', take);
      decoder.on('drain', () => req.resume());
      decoder.on('end', succeed);
      decoder.on('error', () => refuse(errors.validation(`The request body is not valid ${encoding} data`)));
    }
    req.on('data', onRawData);
    req.on('end', onRawEnd);
    req.on('error', onAborted);
    req.on('close', onClose);
  });
}

/** Strict JSON as the API reads it: an object or an array (a scalar is no body of ours); nothing is `{}`. */
function parseJson(text: string): unknown {
  if (text.length === 0) return {};
  const first = /^[\t\n\r ]*(.)/s.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw errors.invalidJson();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw errors.invalidJson();
  }
}

const alreadyRead = new WeakSet<Request>();

/**
 * Reads a JSON body into req.body, within `limit` bytes after decompression (docs/api.md, Input
 * rules). Mounted after authentication: a caller without credentials is answered before a byte of
 * its body is inflated or parsed. A body is read once, whichever reader meets it first.
 */
export function jsonBody(limit: number | ((req: Request) => number)): RequestHandler {
  return async (req, _res, next) => {
    if (alreadyRead.has(req)) return next();
    alreadyRead.add(req);
    if (sendsBody(req)) {
      const encoding = checkJsonBody(req);
      const bytes = await readBody(req, encoding, typeof limit === 'number' ? limit : limit(req));
      req.body = parseJson(decodeBody(bytes, charsetOf(req)));
      refuseUnacceptableBody(req.body);
    }
    next();
  };
}
