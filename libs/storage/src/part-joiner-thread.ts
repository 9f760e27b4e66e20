/**
 * The body of a joiner (local-multipart.ts): a worker thread that completes a local multipart
 * upload with synchronous file calls, copying its parts in order into one sealed object while it
 * hashes them, so that joining gigabytes blocks only this thread, never the gateway's event loop.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE, SEALED_HEADER_BYTES, sealedHeader } from './local-layout.ts';

export interface JoinRequest {
  id: number;
  /** Each part's file and the size it was listed with, in order. */
  parts: { file: string; size: number }[];
  /** Written here (under incoming/), then renamed to `target` (sealed/<key>) once whole. */
  temp: string;
  target: string;
}

/** 'missing_part': a listed part's file is not there; 'size_mismatch': it holds another size than listed. */
export type JoinReply =
  | { id: number; outcome: 'joined'; size: number; sha256: string }
  | { id: number; outcome: 'missing_part' | 'size_mismatch'; partIndex: number }
  | { id: number; error: string };

type Refused = { outcome: 'missing_part' | 'size_mismatch'; partIndex: number };

/** Bytes read and written per call: large enough that a gigabyte is a few hundred calls. */
const COPY_BUFFER_BYTES = 4 * 1024 * 1024;
const buffer = Buffer.allocUnsafe(COPY_BUFFER_BYTES);

function writeAll(fd: number, bytes: Uint8Array, position?: number): void {
  for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at, position === undefined ? null : position + at);
}

/** Appends one part to `out`, hashing it; a refusal if its file is gone or not the size listed. */
function copyPart(out: number, part: { file: string; size: number }, sha: ReturnType<typeof createHash>, partIndex: number): Refused | null {
  let src: number;
  try {
    src = fs.openSync(part.file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { outcome: 'missing_part', partIndex };
    throw error;
  }
  try {
    if (fs.fstatSync(src).size !== part.size) return { outcome: 'size_mismatch', partIndex };
    let copied = 0;
    for (let n: number; (n = fs.readSync(src, buffer, 0, COPY_BUFFER_BYTES, null)) > 0; copied += n) {
      const chunk = buffer.subarray(0, n);
      sha.update(chunk);
      writeAll(out, chunk);
    }
    return copied === part.size ? null : { outcome: 'size_mismatch', partIndex };
  } finally {
    fs.closeSync(src);
  }
}

/**
 * The object is written with a blank header, its bytes hashed as they are copied, then the header
 * written with the SHA-256: one pass over the bytes. Only a whole object is renamed into place.
 */
function join(m: JoinRequest): JoinReply {
  const out = fs.openSync(m.temp, 'wx', PRIVATE_FILE_MODE);
  let joined = false;
  try {
    writeAll(out, Buffer.alloc(SEALED_HEADER_BYTES, ' '));
    const sha = createHash('sha256');
    for (const [partIndex, part] of m.parts.entries()) {
      const refused = copyPart(out, part, sha, partIndex);
      if (refused) return { id: m.id, ...refused };
    }
    const sha256 = sha.digest('hex');
    writeAll(out, Buffer.from(sealedHeader(sha256), 'latin1'), 0);
    fs.closeSync(out);
    joined = true;
    fs.mkdirSync(path.dirname(m.target), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    fs.renameSync(m.temp, m.target);
    return { id: m.id, outcome: 'joined', size: m.parts.reduce((sum, part) => sum + part.size, 0), sha256 };
  } finally {
    if (!joined) {
      closeQuietly(out);
      fs.rmSync(m.temp, { force: true });
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Closed already (its close failed): the temp file goes all the same.
  }
}

if (!parentPort) throw new Error('part-joiner-thread.ts runs as a worker thread');
const port = parentPort;
port.on('message', (m: JoinRequest) => {
  let reply: JoinReply;
  try {
    reply = join(m);
  } catch (error) {
    fs.rmSync(m.temp, { force: true });
    reply = { id: m.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
