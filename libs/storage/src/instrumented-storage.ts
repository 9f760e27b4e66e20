import { inSpan, instruments, SpanKind } from '@lode/telemetry';
import type { BlobStorage, ObjectInfo, OpenMultipartUpload, PresignedPut, PresignGetInput, PresignPartInput, PresignPutInput, StoredPart } from './storage.ts';

/**
 * The storage driver seen from outside: calls that reach the store (head, head_many, content_many,
 * freeze, delete, and the multipart calls, a listing of uploads a span per page) get CLIENT spans;
 * presigning is local arithmetic done a thousand times per batch, so it is only counted.
 */
export function instrumentStorage(storage: BlobStorage): BlobStorage {
  const driver = storage.driver;
  const span = <T>(operation: string, attributes: Record<string, string | number>, work: () => Promise<T>) =>
    inSpan(
      `storage.${operation}`,
      { kind: SpanKind.CLIENT, attributes: { 'lode.storage.driver': driver, 'lode.storage.operation': operation, ...attributes } },
      work,
    );
  const counted = (operation: 'put' | 'put_part' | 'get') =>
    instruments().presignedUrls.add(1, { 'lode.storage.driver': driver, 'lode.storage.operation': operation });
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
    deletePrefix: (prefix: string) => span('delete_prefix', { 'lode.storage.prefix': prefix }, () => storage.deletePrefix(prefix)),
    ensureReady: () => span('ensure_ready', {}, () => storage.ensureReady()),
    createMultipart: (key: string) => span('create_multipart', { 'lode.storage.key': key }, () => storage.createMultipart(key)),
    async presignPart(input: PresignPartInput): Promise<PresignedPut> {
      counted('put_part');
      return storage.presignPart(input);
    },
    listParts: (key: string, uploadId: string) => span('list_parts', { 'lode.storage.key': key }, () => storage.listParts(key, uploadId)),
    completeMultipart: (key: string, uploadId: string, parts: readonly StoredPart[]) =>
      span('complete_multipart', { 'lode.storage.key': key, 'lode.storage.parts': parts.length }, () => storage.completeMultipart(key, uploadId, parts)),
    abortMultipart: (key: string, uploadId: string) => span('abort_multipart', { 'lode.storage.key': key }, () => storage.abortMultipart(key, uploadId)),
    listMultipartUploads: (before: Date) => spannedPages(storage.listMultipartUploads(before), (next) => span('list_multipart_uploads', {}, next)),
  };
}

/** Each page of a listing fetched inside a span of its own; a consumer that stops early ends the listing. */
async function* spannedPages(
  pages: AsyncIterable<OpenMultipartUpload[]>,
  inSpanOf: (next: () => Promise<IteratorResult<OpenMultipartUpload[]>>) => Promise<IteratorResult<OpenMultipartUpload[]>>,
): AsyncIterable<OpenMultipartUpload[]> {
  const iterator = pages[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      const page = await inSpanOf(() => iterator.next());
      if (page.done) {
        done = true;
        return;
      }
      yield page.value;
    }
  } finally {
    if (!done) await iterator.return?.();
  }
}
