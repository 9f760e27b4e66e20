import { inSpan, instruments, SpanKind } from '@lode/telemetry';
import type { BlobStorage, ObjectInfo, PresignedPut, PresignGetInput, PresignPutInput } from './storage.ts';

/**
 * The storage driver seen from outside: calls that reach the store (head, head_many, content_many, freeze, delete) get CLIENT
 * spans; presigning is local arithmetic done a thousand times per batch, so it is only counted.
 */
export function instrumentStorage(storage: BlobStorage): BlobStorage {
  const driver = storage.driver;
  const span = <T>(operation: string, attributes: Record<string, string | number>, work: () => Promise<T>) =>
    inSpan(
      `storage.${operation}`,
      { kind: SpanKind.CLIENT, attributes: { 'lode.storage.driver': driver, 'lode.storage.operation': operation, ...attributes } },
      work,
    );
  const counted = (operation: 'put' | 'get') => instruments().presignedUrls.add(1, { 'lode.storage.driver': driver, 'lode.storage.operation': operation });
  return {
    driver,
    async presignPut(input: PresignPutInput): Promise<PresignedPut> {
      counted('put');
      return storage.presignPut(input);
    },
    async presignGet(input: PresignGetInput): Promise<string> {
      counted('get');
      return storage.presignGet(input);
    },
    head: (key: string): Promise<ObjectInfo | null> => span('head', { 'lode.storage.key': key }, () => storage.head(key)),
    headMany: (keys: readonly string[]) => span('head_many', { 'lode.storage.keys': keys.length }, () => storage.headMany(keys)),
    contentMany: (keys: readonly string[]) => span('content_many', { 'lode.storage.keys': keys.length }, () => storage.contentMany(keys)),
    freeze: (key: string, freshKey: string) => span('freeze', { 'lode.storage.key': key }, () => storage.freeze(key, freshKey)),
    delete: (keys: readonly string[]) => span('delete', { 'lode.storage.keys': keys.length }, () => storage.delete(keys)),
    ensureReady: () => span('ensure_ready', {}, () => storage.ensureReady()),
  };
}
