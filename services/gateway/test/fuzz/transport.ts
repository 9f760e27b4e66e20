import { brotliCompressSync, constants, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import fc from 'fast-check';

const CODECS: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => gzipSync(body, { level: 1 }),
  deflate: (body) => deflateSync(body, { level: 1 }),
  br: (body) => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
  zstd: (body) => zstdCompressSync(body),
  identity: (body) => body,
};

/** Content-Encoding values: the four body-parser decodes, identity, and names it cannot. */
const ENCODINGS = ['gzip', 'deflate', 'br', 'zstd', 'identity', 'compress', 'x-unknown', 'gzip, deflate', 'GZIP', ' gzip ', ''];

/** What the body is for its declared encoding. */
const VARIANTS = ['encoded', 'not encoded', 'truncated', 'bomb'] as const;
type Variant = (typeof VARIANTS)[number];

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16le',
  'application/json; charset=',
  'application/JSON',
  'application/vnd.lode+json',
  'application/json, text/plain',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----fuzz',
  'application/octet-stream',
  '*/*',
  '',
];

/** A JSON body far over the 16 MB body limit once decoded, and a few kilobytes encoded. */
const BOMB_TEXT = `{"pad":"${'0'.repeat(20 * 1024 * 1024)}"}`;
const bombs = new Map<string, Buffer>();
function bomb(codec: string): Buffer {
  let encoded = bombs.get(codec);
  if (!encoded) bombs.set(codec, (encoded = CODECS[codec](Buffer.from(BOMB_TEXT))));
  return encoded;
}

/** How the body travels: its Content-Type (null: none), its Content-Encoding and its framing. */
export interface Transport {
  contentType: string | null;
  encoding: string | undefined;
  variant: Variant;
  chunked: boolean;
}

export const transports: fc.Arbitrary<Transport> = fc.record({
  contentType: fc.oneof(
    { weight: 3, arbitrary: fc.constant('application/json') },
    { weight: 3, arbitrary: fc.constantFrom<string | null>(...CONTENT_TYPES, null) },
  ),
  encoding: fc.option(fc.constantFrom(...ENCODINGS), { nil: undefined }),
  variant: fc.constantFrom(...VARIANTS),
  chunked: fc.boolean(),
});

/** The body as the transport sends it; a name body-parser does not know gets gzip bytes. */
export function encodeBody(body: Buffer, transport: Transport): Buffer {
  if (transport.encoding === undefined) return body;
  const declared = transport.encoding.trim().toLowerCase();
  const name = declared in CODECS ? declared : 'gzip';
  switch (transport.variant) {
    case 'encoded':
      return CODECS[name](body);
    case 'not encoded':
      return body;
    case 'truncated': {
      const encoded = CODECS[name](body);
      return encoded.subarray(0, Math.floor(encoded.length / 2));
    }
    case 'bomb':
      // Sent as is, an identity bomb would be 20 MB on the wire: the oversize mutation covers that.
      return bomb(name === 'identity' ? 'gzip' : name);
  }
}

export function describeTransport(t: Transport): string {
  const type = t.contentType === null ? 'no Content-Type' : `Content-Type "${t.contentType}"`;
  const encoding = t.encoding === undefined ? '' : `, Content-Encoding "${t.encoding}" (${t.variant})`;
  return `${type}${encoding}${t.chunked ? ', chunked' : ''}`;
}
