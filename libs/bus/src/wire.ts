export function encode(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value ?? null));
}

export function decode(data: Uint8Array): unknown {
  if (data.length === 0) return undefined;
  return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as unknown;
}

export function splitChunks(body: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += size) chunks.push(body.subarray(offset, offset + size));
  return chunks;
}
