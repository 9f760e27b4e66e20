import { describe, expect, it } from 'vitest';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { AppError, errors } from '@lode/errors';
import { asStorageOutage, isStorageOutage } from './storage-outage.ts';

const s3Answer = (name: string, httpStatusCode: number) =>
  new S3ServiceException({ name, $fault: httpStatusCode >= 500 ? 'server' : 'client', $metadata: { httpStatusCode } });

describe('storage outages', () => {
  it.each([
    ['S3 answering 503', s3Answer('ServiceUnavailable', 503)],
    ['S3 answering 500', s3Answer('InternalError', 500)],
    ['throttling without a 5xx', s3Answer('SlowDown', 400)],
    ['a silent socket', Object.assign(new Error('socket timed out'), { name: 'TimeoutError' })],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a connection cut mid-body', Object.assign(new Error('premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })],
  ])('%s is one: 503 service_unavailable, with the store’s error as its cause', (_what, error) => {
    expect(isStorageOutage(error)).toBe(true);
    const mapped = asStorageOutage(error);
    expect(mapped).toBeInstanceOf(AppError);
    expect((mapped as AppError).toJSON()).toEqual({ code: 'service_unavailable', message: 'Service storage is not available', retryAfterSeconds: 1 });
    expect((mapped as Error).cause).toBe(error);
  });

  it.each([
    ['a missing object', s3Answer('NotFound', 404)],
    ['a refused signature', s3Answer('SignatureDoesNotMatch', 403)],
    ['a bug', new TypeError('x is undefined')],
    ['an error of ours', errors.contentMismatch('differs')],
  ])('%s is not, and passes unchanged', (_what, error) => {
    expect(isStorageOutage(error)).toBe(false);
    expect(asStorageOutage(error)).toBe(error);
  });
});
