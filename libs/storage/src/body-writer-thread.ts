/**
 * The body of a writer (local-http.ts): a worker thread that hashes (MD5 and SHA-256), writes, checks
 * and renames each body into place with synchronous file calls. An object appears under its key
 * only if length, MD5 and SHA-256 match what was signed, with the verified SHA-256 in its header;
 * a part of a multipart upload, only if length and MD5 match, in its upload's folder.
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { isLaterPart, parsePartFileName, PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from './local-layout.ts';
import type { Refusal } from './local-http.ts';

/** Where a verified body goes, and what it must be. */
export interface Placement {
  temp: string;
  target: string;
  /** Written before the body: the SHA-256 the object is renamed into place only if it matches ('' for a part). */
  header: string;
  size: number;
  contentMd5: string;
  /** The SHA-256 the body must have; none for a part, whose object is hashed whole when it is completed. */
  sha256: string | undefined;
  /**
   * The part number when the body is a part: it goes into its upload's folder only if that still
   * exists (an upload aborted or completed meanwhile is not made again), and displaces any body
   * stored before for the same number.
   */
  part?: number | undefined;
}

/**
 * What a writer is sent: a small body whole, or a large one opened, then its pieces, then its end
 * (or an abort). A buffer is moved to the thread, and moved back with the answer.
 */
export type WriterMessage =
  | { type: 'whole'; id: number; p: Placement; buffer: ArrayBuffer; length: number }
  | { type: 'open'; id: number; p: Placement }
  | { type: 'data'; id: number; buffer: ArrayBuffer; length: number }
  | { type: 'end'; id: number }
  | { type: 'abort'; id: number };

export interface WriterReply {
  type: 'ack' | 'done';
  id: number;
  bytes?: number;
  outcome?: 'stored' | Refusal;
  error?: string;
  /** A body's buffer, back from the worker for the next body. */
  buffer?: ArrayBuffer | undefined;
}

interface OpenUpload {
  fd: number;
  p: Placement;
  size: number;
  md5: Hash;
  sha: Hash | undefined;
}

if (!parentPort) throw new Error('body-writer-thread.ts runs as a worker thread');
const port = parentPort;

const open = new Map<number, OpenUpload>();
// Keys share a few folders (one per project): each is made once, not once per object.
const madeDirs = new Set<string>();

/** Replies, moving back the buffer the body came in, if any. */
function reply(message: WriterReply): void {
  port.postMessage(message, message.buffer ? [message.buffer] : []);
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at);
}

function refusal(p: Placement, size: number, md5: string, sha256: string | undefined): Refusal | null {
  if (size !== p.size) return { status: 400, code: 'incomplete_body', message: `Received ${size} of ${p.size} bytes` };
  if (p.contentMd5 !== '' && md5 !== p.contentMd5) return { status: 400, code: 'bad_digest', message: 'The body does not match Content-MD5' };
  if (p.sha256 !== undefined && sha256 !== p.sha256) return { status: 400, code: 'sha256_mismatch', message: 'The body does not match the declared SHA-256' };
  return null;
}

const noSuchUpload: Refusal = { status: 404, code: 'no_such_upload', message: 'The multipart upload was completed or aborted' };

/** Renames a part into its upload's folder, never making the folder: an upload that is gone stays gone. */
function placePart(p: Placement, partNumber: number): 'stored' | Refusal {
  try {
    fs.renameSync(p.temp, p.target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    fs.rmSync(p.temp, { force: true });
    return noSuchUpload;
  }
  displaceEarlier(p.target, partNumber);
  return 'stored';
}

/**
 * Removes what was stored for the same part number before this body (another MD5, so another
 * name). Only files older than this one (isLaterPart) go: two PUTs of the part at once leave the
 * later one whichever removes first, and a body displaced already removes nothing.
 */
function displaceEarlier(target: string, partNumber: number): void {
  const dir = path.dirname(target);
  const name = path.basename(target);
  try {
    const own = fs.statSync(target, { bigint: true, throwIfNoEntry: false });
    if (!own) return;
    for (const sibling of fs.readdirSync(dir)) {
      if (sibling === name || parsePartFileName(sibling)?.partNumber !== partNumber) continue;
      const file = path.join(dir, sibling);
      const other = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
      if (other && isLaterPart({ name, ctimeNs: own.ctimeNs }, { name: sibling, ctimeNs: other.ctimeNs })) fs.rmSync(file, { force: true });
    }
  } catch (error) {
    // The upload was completed or aborted meanwhile: nothing is left to displace.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function moveIntoPlace(p: Placement): void {
  const dir = path.dirname(p.target);
  if (!madeDirs.has(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    madeDirs.add(dir);
  }
  try {
    fs.renameSync(p.temp, p.target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // The folder was removed since (an operator clearing a project): make it again.
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    fs.renameSync(p.temp, p.target);
  }
}

// A whole body's buffer goes back with the answer, for the next body.
function finish(id: number, p: Placement, size: number, md5: string, sha256: string | undefined, buffer?: ArrayBuffer): void {
  const refused = refusal(p, size, md5, sha256);
  if (refused) {
    fs.rmSync(p.temp, { force: true });
    return reply({ type: 'done', id, outcome: refused, buffer });
  }
  if (p.part !== undefined) return reply({ type: 'done', id, outcome: placePart(p, p.part), buffer });
  moveIntoPlace(p);
  reply({ type: 'done', id, outcome: 'stored', buffer });
}

function drop(id: number): void {
  const upload = open.get(id);
  if (!upload) return;
  open.delete(id);
  try {
    fs.closeSync(upload.fd);
  } catch {
    // Already closed: the temp file goes all the same.
  }
  fs.rmSync(upload.p.temp, { force: true });
}

function handle(m: WriterMessage): void {
  switch (m.type) {
    case 'whole': {
      const body = Buffer.from(m.buffer, 0, m.length);
      const md5 = createHash('md5').update(body).digest('base64');
      const sha256 = m.p.sha256 === undefined ? undefined : createHash('sha256').update(body).digest('hex');
      // Only a body that matches is written at all.
      if (!refusal(m.p, body.length, md5, sha256)) {
        const fd = fs.openSync(m.p.temp, 'wx', PRIVATE_FILE_MODE);
        try {
          writeAll(fd, Buffer.from(m.p.header, 'latin1'));
          writeAll(fd, body);
        } finally {
          fs.closeSync(fd);
        }
      }
      return finish(m.id, m.p, body.length, md5, sha256, m.buffer);
    }
    case 'open': {
      const fd = fs.openSync(m.p.temp, 'wx', PRIVATE_FILE_MODE);
      writeAll(fd, Buffer.from(m.p.header, 'latin1'));
      open.set(m.id, { fd, p: m.p, size: 0, md5: createHash('md5'), sha: m.p.sha256 === undefined ? undefined : createHash('sha256') });
      return;
    }
    case 'data': {
      const upload = open.get(m.id);
      const chunk = new Uint8Array(m.buffer, 0, m.length);
      if (upload) {
        upload.md5.update(chunk);
        upload.sha?.update(chunk);
        writeAll(upload.fd, chunk);
        upload.size += chunk.length;
      }
      return reply({ type: 'ack', id: m.id, bytes: m.length, buffer: m.buffer });
    }
    case 'end': {
      const upload = open.get(m.id);
      if (!upload) throw new Error(`No upload ${m.id} is open`);
      open.delete(m.id);
      fs.closeSync(upload.fd);
      return finish(m.id, upload.p, upload.size, upload.md5.digest('base64'), upload.sha?.digest('hex'));
    }
    case 'abort':
      return drop(m.id);
  }
}

port.on('message', (m: WriterMessage) => {
  try {
    handle(m);
  } catch (error) {
    drop(m.id);
    if ('p' in m) fs.rmSync(m.p.temp, { force: true });
    if (m.type === 'data') reply({ type: 'ack', id: m.id, bytes: m.length, buffer: m.buffer });
    reply({ type: 'done', id: m.id, error: error instanceof Error ? error.message : String(error), buffer: m.type === 'whole' ? m.buffer : undefined });
  }
});
