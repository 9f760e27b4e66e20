/**
 * The body of a head reader (local-heads.ts): a worker thread that reads each object's head with
 * synchronous file calls, a batch per message. A sealed file appears only by a rename after it was
 * written whole, so a bad header is corruption, reported as the batch's error.
 */
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { HEADER_PREFIX, SEALED_HEADER_BYTES } from './local-layout.ts';
import type { LocalHead, ObjectFiles } from './local-heads.ts';

export interface HeadRequest {
  id: number;
  objects: ObjectFiles[];
}

export type HeadReply = { id: number; heads: (LocalHead | null)[] } | { id: number; error: string };

const header = Buffer.alloc(SEALED_HEADER_BYTES);

function missing(error: unknown): null {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  return null;
}

function sealed(file: string): LocalHead | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    return missing(error);
  }
  try {
    const n = fs.readSync(fd, header, 0, SEALED_HEADER_BYTES, 0);
    const text = header.toString('latin1', 0, n);
    const sha256 = text.slice(HEADER_PREFIX.length, -1);
    if (n !== SEALED_HEADER_BYTES || !text.startsWith(HEADER_PREFIX) || !text.endsWith('\n') || !/^[0-9a-f]{64}$/.test(sha256)) {
      throw new Error(`Corrupt object header in ${file}`);
    }
    return { size: fs.fstatSync(fd).size - SEALED_HEADER_BYTES, verifiedSha256: sha256 };
  } finally {
    fs.closeSync(fd);
  }
}

/** An object of an earlier version: its bytes, and its verified SHA-256 in a sidecar. */
function legacy(object: string, sidecar: string): LocalHead | null {
  try {
    const size = fs.statSync(object).size;
    return { size, verifiedSha256: fs.readFileSync(sidecar, 'utf8') };
  } catch (error) {
    return missing(error);
  }
}

if (!parentPort) throw new Error('head-reader-thread.ts runs as a worker thread');
const port = parentPort;
port.on('message', ({ id, objects }: HeadRequest) => {
  let reply: HeadReply;
  try {
    reply = { id, heads: objects.map((o) => sealed(o.sealed) ?? legacy(o.legacy, o.sidecar)) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
