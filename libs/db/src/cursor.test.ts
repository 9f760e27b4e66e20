import { describe, expect, it } from 'vitest';
import { AppError } from '@lode/errors';
import { CursorCodec } from './cursor.ts';

describe('CursorCodec', () => {
  const codec = new CursorCodec('secret');
  it('round-trips a position', () => {
    expect(codec.decode(codec.encode(['2026-01-01T00:00:00.000Z', 'abc', 3]))).toEqual(['2026-01-01T00:00:00.000Z', 'abc', 3]);
  });
  it.each(['', 'garbage', 'a.b', `${Buffer.from('[1]').toString('base64url')}.forged`])('refuses %j as a validation error', (bad) => {
    expect(() => codec.decode(bad)).toThrow(AppError);
  });
  it('refuses a cursor signed with another secret', () => {
    expect(() => new CursorCodec('other').decode(codec.encode([1]))).toThrow(AppError);
  });
});
