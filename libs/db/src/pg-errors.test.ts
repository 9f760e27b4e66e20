import { describe, expect, it } from 'vitest';
import { isAppError } from '@lode/errors';
import { mapPgError } from './pg-errors.ts';

const codeOf = (error: unknown) => (isAppError(error) ? error.code : 'unmapped');

describe('mapPgError', () => {
  it.each(['53300', '57P01', '57P03', '08006', '08001', '08003', 'ECONNREFUSED', 'ECONNRESET'])(
    'makes %s, a database that is unreachable or full, a retryable service_unavailable',
    (code) => {
      expect(codeOf(mapPgError(Object.assign(new Error('db'), { code })))).toBe('service_unavailable');
    },
  );

  it.each(['57014', '25P03'])('makes %s, a statement or an idle transaction past its timeout, a retryable service_unavailable with Retry-After', (code) => {
    const mapped = mapPgError(Object.assign(new Error('canceling statement due to statement timeout'), { code }));
    expect(isAppError(mapped) && mapped.toJSON()).toMatchObject({ code: 'service_unavailable', retryAfterSeconds: 1 });
  });

  it('leaves an unknown error as it is, so it surfaces as internal', () => {
    const error = Object.assign(new Error('bug'), { code: '42P01' });
    expect(mapPgError(error)).toBe(error);
  });
});
