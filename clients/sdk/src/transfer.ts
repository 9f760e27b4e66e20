import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import { giveBackBody, takeBody, WHOLE_MAX } from './body-buffers.ts';
import { LodeTransferError } from './errors.ts';
import { answerOf, readText, requestFor } from './node-http.ts';
import { isRetryableStatus, retryDelayMs, sleep, type RetryPolicy } from './retry.ts';

/** Bytes read from disk per piece of a PUT body, and written to disk at once by a GET. */
export const PIECE = 1024 * 1024;

export interface TransferOptions {
  retry: RetryPolicy;
  signal?: AbortSignal;
  /** Called with each piece's length as bytes move. A retried transfer reports `-sent` first, so totals stay true. */
  onBytes?: (delta: number) => void;
}

/** Bytes `start` (included) to `end` (excluded) of a file: one part of a multipart upload. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PutOptions extends TransferOptions {
  /** Only these bytes of the file are the body (a part); the whole file when omitted. */
  range?: ByteRange;
}

/** PUTs a file (or a range of it) to a presigned URL with the headers the API required, streaming it from disk. */
export async function putFile(name: string, url: string, headers: Record<string, string>, filePath: string, options: PutOptions): Promise<void> {
  const declared = Number(headerValue(headers, 'content-length') ?? Number.NaN);
  const { range } = options;
  if (range && declared !== range.end - range.start)
    throw new LodeTransferError(name, `the URL signs ${declared} bytes, the part has ${range.end - range.start}`, 400);
  await withRetries(options, async () => {
    let sent = 0;
    try {
      const onBytes = (n: number) => {
        sent += n;
        options.onBytes?.(n);
      };
      const answer =
        Number.isFinite(declared) && declared <= WHOLE_MAX
          ? await wholePut(name, url, headers, filePath, declared, range, options.signal, onBytes)
          : await streamPut(name, url, headers, filePath, declared, range, options.signal, onBytes);
      if (answer.status < 200 || answer.status > 299) throw refusal(name, answer);
    } catch (error) {
      options.onBytes?.(-sent);
      throw error;
    }
  });
}

/** Storage's answer to a transfer, as much of it as a refusal needs. */
export interface StorageAnswer {
  status: number;
  text: string;
  retryAfter: string | null;
}

export function refusal(name: string, answer: StorageAnswer): LodeTransferError {
  return new LodeTransferError(name, `storage answered ${answer.status} ${answer.text.slice(0, 300)}`, answer.status, answer.retryAfter);
}

export function answerOfStorage(response: http.IncomingMessage, text: string): StorageAnswer {
  const retryAfter = response.headers['retry-after'];
  return { status: response.statusCode ?? 0, text, retryAfter: typeof retryAfter === 'string' ? retryAfter : null };
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/**
 * A small file: one synchronous read into a reused buffer, sent as the whole body. Synchronous on
 * purpose: a read of at most WHOLE_MAX bytes takes microseconds, while the thread pool's open, read
 * and close took three hand-offs between threads per file, which on a busy machine cost more than
 * the reads.
 */
async function wholePut(
  name: string,
  url: string,
  headers: Record<string, string>,
  filePath: string,
  declared: number,
  range: ByteRange | undefined,
  signal: AbortSignal | undefined,
  onBytes: (n: number) => void,
): Promise<StorageAnswer> {
  const buffer = Buffer.from(takeBody(declared + 1));
  // One byte more than declared is asked for, to see a file that grew since it was hashed (a part's
  // next byte is the next part's: a part is checked for length only).
  const length = readInto(filePath, buffer, range ? declared : declared + 1, range?.start ?? 0);
  // Storage would refuse this body (400, its length or MD5 is not what was signed): no need to send it.
  if (length !== declared) {
    giveBackBody(buffer.buffer);
    throw new LodeTransferError(name, `the file changed since it was hashed (${length} bytes now, ${declared} then)`, 400);
  }
  const request = requestFor(url, 'PUT', headers, signal);
  const answered = answerOf(request);
  request.end(buffer.subarray(0, length));
  onBytes(length);
  const response = await answered;
  const status = response.statusCode ?? 0;
  // A success means storage read the whole body, so the socket is done with the buffer; after a
  // failure it may not be, and the buffer is left to the garbage collector.
  if (status >= 200 && status <= 299) giveBackBody(buffer.buffer);
  return answerOfStorage(response, await readText(response));
}

function readInto(filePath: string, buffer: Buffer, wanted: number, from: number): number {
  const fd = openSync(filePath, 'r');
  try {
    let length = 0;
    for (let n = -1; n !== 0 && length < wanted; length += n) n = readSync(fd, buffer, length, wanted - length, from + length);
    return length;
  } finally {
    closeSync(fd);
  }
}

/**
 * node:http rather than fetch for the upload: its pipeline reads the next piece from disk only once
 * the socket took the last, so memory stays flat however slow the store (fetch with a stream body
 * reads ahead of a slow socket, up to a whole file). A store that refuses early still has its
 * answer read.
 */
async function streamPut(
  name: string,
  url: string,
  headers: Record<string, string>,
  filePath: string,
  declared: number,
  range: ByteRange | undefined,
  signal: AbortSignal | undefined,
  onBytes: (n: number) => void,
): Promise<StorageAnswer> {
  const request = requestFor(url, 'PUT', headers, signal);
  // A refusal can come before the whole body went (an expired URL, a bad signature): the store takes
  // no more of it, and node's client, answered, stalls the rest of the body until the socket times
  // out. The refusal is read, then the request ended: the answer is what the caller needs.
  const answered = answerOf(request).then(async (response) => {
    const text = await readText(response);
    const status = response.statusCode ?? 0;
    if ((status < 200 || status > 299) && !request.writableFinished) request.destroy();
    return { response, text };
  });
  let read = 0;
  // A file that changed length since it was hashed fails here, rather than leaving storage waiting for bytes that never come.
  const changed = () => new LodeTransferError(name, `the file changed since it was hashed (${read} bytes or more now, ${declared} then)`, 400);
  const counter = new Transform({
    transform(piece: Buffer, _encoding, done) {
      read += piece.length;
      if (read > declared) return done(changed()); // never true of NaN: no length declared, none checked
      onBytes(piece.length);
      done(null, piece);
    },
    flush(done) {
      done(read === declared || Number.isNaN(declared) ? null : changed());
    },
  });
  const [sending, response] = await Promise.allSettled([
    pipeline(createReadStream(filePath, { highWaterMark: PIECE, ...(range ? { start: range.start, end: range.end - 1 } : {}) }), counter, request),
    answered,
  ]);
  if (sending.status === 'rejected' && sending.reason instanceof LodeTransferError) throw sending.reason;
  if (response.status === 'rejected') throw response.reason;
  if (sending.status === 'rejected' && response.value.response.statusCode === 200) throw sending.reason;
  return answerOfStorage(response.value.response, response.value.text);
}

/** A download's temporary file beside its destination: hidden, and named so a workspace tool can tell it (isPartialDownload). */
function partialDownloadPath(dest: string): string {
  return path.join(path.dirname(dest), `.${path.basename(dest)}.${randomBytes(4).toString('hex')}.lode-tmp`);
}

/**
 * Whether a file name is a download's temporary file: a download killed outright leaves it behind.
 * Either a small download's (`.lode-tmp`, of no use once its download is gone) or a large one's
 * resumable bytes and record of the ranges it holds (`.lode-partial`, `.lode-ranges`: ranged-download.ts).
 */
export function isPartialDownload(fileName: string): boolean {
  return /^\..+\.[0-9a-f]{8}\.lode-tmp$/.test(fileName) || isResumablePartial(fileName);
}

/** Whether a file name is a large download's resumable state (ranged-download.ts, resumablePaths). */
export function isResumablePartial(fileName: string): boolean {
  return /^\..+\.[0-9a-f]{16}\.lode-(partial|ranges)$/.test(fileName);
}

/**
 * GETs a presigned URL into `dest` through a temporary file beside it, checking the SHA-256 and size
 * on the way: the destination is replaced only by bytes that match, in one rename.
 */
export async function downloadToFile(
  name: string,
  url: string,
  dest: string,
  expected: { sha256: string; size: number },
  options: TransferOptions,
): Promise<void> {
  const dir = path.dirname(dest);
  await ensureDir(dir);
  await withRetries(options, async () => {
    const temp = partialDownloadPath(dest);
    let received = 0;
    try {
      const request = requestFor(url, 'GET', {}, options.signal);
      const answered = answerOf(request);
      request.end();
      const response = await answered;
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) throw refusal(name, answerOfStorage(response, await readText(response)));
      const sha256 = createHash('sha256');
      const onPiece = (piece: Buffer) => {
        sha256.update(piece);
        received += piece.length;
        options.onBytes?.(piece.length);
      };
      const check = () => {
        const digest = sha256.digest('hex');
        if (received !== expected.size || digest !== expected.sha256) {
          throw new LodeTransferError(
            name,
            `downloaded bytes do not match (size ${received}, sha256 ${digest}; expected ${expected.size}, ${expected.sha256})`,
          );
        }
      };
      if (expected.size <= WHOLE_MAX) {
        // Checked before anything is written: a bad body never touches the disk.
        const body = await receiveWhole(response, onPiece);
        check();
        await fileWriter().write(temp, dest, body);
      } else {
        await receiveStreaming(response, temp, onPiece);
        check();
        await rename(temp, dest);
      }
    } catch (error) {
      options.onBytes?.(-received);
      await rm(temp, { force: true });
      // The folder was removed since this process made it (ensureDir remembers it): make it again before the retry.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        madeDirs.delete(dir);
        await ensureDir(dir);
      }
      throw error;
    }
  });
}

/** A small body, gathered into one buffer of its own (it is at most WHOLE_MAX; a longer one is cut off). */
async function receiveWhole(response: http.IncomingMessage, onPiece: (piece: Buffer) => void): Promise<Uint8Array<ArrayBuffer>> {
  const pieces: Buffer[] = [];
  let length = 0;
  for await (const piece of response as AsyncIterable<Buffer>) {
    onPiece(piece);
    length += piece.length;
    if (length > WHOLE_MAX) throw new Error(`the body is longer than the ${WHOLE_MAX} bytes announced`);
    pieces.push(piece);
  }
  const body = new Uint8Array(takeBody(length), 0, length);
  let at = 0;
  for (const piece of pieces) {
    body.set(piece, at);
    at += piece.length;
  }
  return body;
}

/**
 * Small downloads are written by one worker thread, synchronously: a temporary file, then a rename
 * over the destination. Creating a file is the costly part (kernel time, serialized by the
 * filesystem whatever the number of threads), and through libuv's
 * pool each file took four hand-offs between threads (open, write, close, rename) with four threads
 * contending for that one lock, the main thread starved meanwhile.
 */
const FILE_WRITER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ id, temp, dest, buffer, length }) => {
  let error;
  try {
    fs.writeFileSync(temp, new Uint8Array(buffer, 0, length), { flag: 'wx' });
    fs.renameSync(temp, dest);
  } catch (failure) {
    fs.rmSync(temp, { force: true });
    error = { message: failure.message, code: failure.code };
  }
  // The buffer goes back for the next body.
  parentPort.postMessage({ id, buffer, error }, [buffer]);
});
`;

class FileWriter {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  #nextId = 0;

  constructor(onLost: () => void) {
    this.#worker = new Worker(FILE_WRITER_SOURCE, { eval: true });
    this.#worker.unref();
    this.#worker.on('message', (reply: { id: number; buffer: ArrayBuffer; error?: { message: string; code?: string } }) => {
      giveBackBody(reply.buffer);
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      // Idle, it must not keep the process alive.
      if (this.#pending.size === 0) this.#worker.unref();
      if (reply.error) pending?.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else pending?.resolve();
    });
    const lost = (error: Error) => {
      onLost();
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    this.#worker.on('error', lost);
    this.#worker.on('exit', (code) => lost(new Error(`file writer exited (code ${code})`)));
  }

  /** Writes `body` to `temp`, then renames it to `dest`; its buffer moves to the worker and back (giveBackBody). */
  write(temp: string, dest: string, body: Uint8Array<ArrayBuffer>): Promise<void> {
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, temp, dest, buffer: body.buffer, length: body.length }, [body.buffer]);
    });
  }
}

let writer: FileWriter | undefined;

function fileWriter(): FileWriter {
  writer ??= new FileWriter(() => (writer = undefined));
  return writer;
}

/** A large body: written as it comes, a piece of up to PIECE at a time, so memory stays flat. */
async function receiveStreaming(response: http.IncomingMessage, temp: string, onPiece: (piece: Buffer) => void): Promise<void> {
  const file = await open(temp, 'w');
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for await (const piece of response as AsyncIterable<Buffer>) {
      onPiece(piece);
      pending.push(piece);
      pendingBytes += piece.length;
      // Sockets deliver 64 KiB at a time: one write per MiB rather than sixteen.
      if (pendingBytes >= PIECE) {
        await file.writev(pending);
        pending = [];
        pendingBytes = 0;
      }
    }
    if (pending.length > 0) await file.writev(pending);
  } finally {
    await file.close();
  }
}

/** Folders already made by this process: a pull of thousands of files into a few folders makes each once. */
const madeDirs = new Map<string, Promise<unknown>>();

export async function ensureDir(dir: string): Promise<void> {
  let made = madeDirs.get(dir);
  if (!made) {
    made = mkdir(dir, { recursive: true });
    madeDirs.set(dir, made);
  }
  try {
    await made;
  } catch (error) {
    madeDirs.delete(dir);
    throw error;
  }
}

/**
 * Storage answers 5xx or drops the connection now and then: retry those, never a 4xx (a bad or
 * expired URL) but 429, after the store's Retry-After when it sends one (an S3 SlowDown asks for
 * less traffic: coming back sooner only earns more refusals).
 */
export async function withRetries(options: TransferOptions, attempt: () => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (options.signal?.aborted || tries >= options.retry.attempts) throw error;
      // No status: a dropped connection or bytes that did not match, both worth another try.
      const transfer = error instanceof LodeTransferError ? error : null;
      const status = transfer?.status ?? null;
      if (status !== null && status < 500 && !isRetryableStatus(status)) throw error;
      await sleep(retryDelayMs(options.retry, tries, transfer?.retryAfter ?? null), options.signal);
    }
  }
}
