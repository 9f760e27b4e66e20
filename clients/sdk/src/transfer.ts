import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LodeTransferError } from './errors.ts';
import { isRetryableStatus, retryDelayMs, sleep, type RetryPolicy } from './retry.ts';

/** Bytes read from disk per piece of a PUT body. */
const PIECE = 1024 * 1024;

export interface TransferOptions {
  retry: RetryPolicy;
  signal?: AbortSignal;
  /** Called with each piece's length as bytes move. A retried transfer reports `-sent` first, so totals stay true. */
  onBytes?: (delta: number) => void;
}

/** PUTs a file to a presigned URL with the headers the API required, streaming it from disk. */
export async function putFile(name: string, url: string, headers: Record<string, string>, filePath: string, options: TransferOptions): Promise<void> {
  await withRetries(options, async () => {
    let sent = 0;
    try {
      const { status, text } = await streamPut(url, headers, filePath, options.signal, (n) => {
        sent += n;
        options.onBytes?.(n);
      });
      if (status < 200 || status > 299) throw new LodeTransferError(name, `storage answered ${status} ${text.slice(0, 300)}`, status);
    } catch (error) {
      options.onBytes?.(-sent);
      throw error;
    }
  });
}

/**
 * node:http rather than fetch for the upload: its pipeline reads the next piece from disk only once
 * the socket took the last, so memory stays flat however slow the store (fetch with a stream body
 * was seen holding a whole 1 GiB file). A store that refuses early still has its answer read.
 */
async function streamPut(url: string, headers: Record<string, string>, filePath: string, signal: AbortSignal | undefined, onBytes: (n: number) => void): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const request = (target.protocol === 'https:' ? https : http).request(target, { method: 'PUT', headers, signal });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  const counter = new Transform({
    transform(piece: Buffer, _encoding, done) {
      onBytes(piece.length);
      done(null, piece);
    },
  });
  const [sending, response] = await Promise.allSettled([pipeline(createReadStream(filePath, { highWaterMark: PIECE }), counter, request), answered]);
  if (response.status === 'rejected') throw response.reason;
  let text = '';
  for await (const piece of response.value) text += String(piece);
  if (sending.status === 'rejected' && response.value.statusCode === 200) throw sending.reason;
  return { status: response.value.statusCode ?? 0, text };
}

/**
 * GETs a presigned URL into `dest` through a temporary file beside it, checking the SHA-256 and size
 * on the way: the destination is replaced only by bytes that match, in one rename.
 */
export async function downloadToFile(name: string, url: string, dest: string, expected: { sha256: string; size: number }, options: TransferOptions): Promise<void> {
  await mkdir(path.dirname(dest), { recursive: true });
  await withRetries(options, async () => {
    const temp = path.join(path.dirname(dest), `.${path.basename(dest)}.${randomBytes(4).toString('hex')}.lode-tmp`);
    let received = 0;
    try {
      const response = await fetch(url, { signal: options.signal });
      if (!response.ok || !response.body) throw new LodeTransferError(name, `storage answered ${response.status} ${(await response.text()).slice(0, 300)}`, response.status);
      const sha256 = createHash('sha256');
      // One piece at a time: the next is read only once the last is on disk, so memory stays flat.
      const file = await open(temp, 'w');
      try {
        for await (const piece of response.body as AsyncIterable<Uint8Array>) {
          sha256.update(piece);
          received += piece.length;
          options.onBytes?.(piece.length);
          await file.write(piece);
        }
      } finally {
        await file.close();
      }
      const digest = sha256.digest('hex');
      if (received !== expected.size || digest !== expected.sha256) {
        throw new LodeTransferError(name, `downloaded bytes do not match (size ${received}, sha256 ${digest}; expected ${expected.size}, ${expected.sha256})`);
      }
      await rename(temp, dest);
    } catch (error) {
      options.onBytes?.(-received);
      await rm(temp, { force: true });
      throw error;
    }
  });
}

/** Storage answers 5xx or drops the connection now and then: retry those, never a 4xx (a bad or expired URL). */
async function withRetries(options: TransferOptions, attempt: () => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (options.signal?.aborted || tries >= options.retry.attempts) throw error;
      // No status: a dropped connection or bytes that did not match, both worth another try.
      const status = error instanceof LodeTransferError ? error.status : null;
      if (status !== null && status < 500 && !isRetryableStatus(status)) throw error;
      await sleep(retryDelayMs(options.retry, tries, null), options.signal);
    }
  }
}
