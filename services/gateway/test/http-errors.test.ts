import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, pushFile, readResponse, type PushedFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

describe('bad input answers a clear 4xx JSON error, never a 500', () => {
  let stack: TestStack;
  let p: SeededProject;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
    p = await stack.seed.project();
  });
  afterAll(async () => stack?.stop());
  const initiate = () => `/api/v1/projects/${p.projectId}/files/upload/initiate`;

  it.each([
    ['malformed JSON', '{"path": ', 'invalid_json'],
    ['a JSON array', '[]', 'validation_failed'],
    ['a string size', JSON.stringify({ path: 'a', sha256: 'a'.repeat(64), size: '10', contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' }), 'validation_failed'],
    ['a negative size', JSON.stringify({ path: 'a', sha256: 'a'.repeat(64), size: -1, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' }), 'validation_failed'],
    ['a short sha256', JSON.stringify({ path: 'a', sha256: 'abc', size: 1, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' }), 'validation_failed'],
    ['a bare null (strict JSON objects only)', 'null', 'invalid_json'],
  ])('400 for %s', async (_, body, code) => {
    const res = await p.api.request('POST', initiate(), body, { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code, message: expect.any(String) });
  });

  it('400 for a confirm with both storageKey and dedup, or neither', async () => {
    const base = { fileId: crypto.randomUUID(), version: 1, sha256: 'a'.repeat(64), size: 1 };
    for (const body of [{ ...base, storageKey: 'k', dedup: true }, base]) {
      const res = await p.api.post(`/api/v1/projects/${p.projectId}/files/upload/confirm`, body);
      expect(res.status).toBe(400);
    }
  });

  it('413 for a body over the limit', async () => {
    const res = await p.api.request('POST', initiate(), JSON.stringify({ pad: 'x'.repeat(17 * 1024 * 1024) }), { 'content-type': 'application/json' });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large' });
  });

  describe('input rules at the edge (docs/api.md, Input rules)', () => {
    let file: PushedFile;
    beforeAll(async () => {
      file = await pushFile(p.api, p.projectId, 'rules/a.bin', Buffer.from('rules'));
    });
    const url = (path: string) => `/api/v1/projects/${p.projectId}${path}`;
    const expect400 = async (res: { status: number; body: unknown }, field: string) => {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', message: expect.stringContaining(field) });
    };

    it.each([2 ** 31, 5368709121, 2 ** 53 - 1, 2 ** 53])('400 naming the field for a commit version of %d, which no integer column holds', async (version) => {
      await expect400(
        await p.api.post(url('/commits'), { message: 'm', fileVersions: [{ fileId: file.fileId, version, action: 'modify' }] }),
        'fileVersions.0.version',
      );
    });

    it('answers six out-of-range commits and restores at once with 400, and keeps serving', async () => {
      const commits = Array.from({ length: 3 }, () =>
        p.api.post(url('/commits'), { message: 'm', fileVersions: [{ fileId: file.fileId, version: 2 ** 31, action: 'modify' }] }),
      );
      const restores = Array.from({ length: 3 }, () => p.api.post(url('/restore'), { files: [{ fileId: file.fileId, toVersion: 2 ** 31 }] }));
      for (const res of await Promise.all([...commits, ...restores])) expect(res.status).toBe(400);
      expect((await p.api.post(url('/commits'), { message: 'ok', fileVersions: [{ fileId: file.fileId, version: file.version, action: 'add' }] })).status).toBe(
        201,
      );
    });

    it('400 for a restore to a version past the integer range, and a confirm larger than any upload', async () => {
      await expect400(await p.api.post(url('/restore'), { files: [{ fileId: file.fileId, toVersion: 2 ** 31 }] }), 'files.0.toVersion');
      await expect400(
        await p.api.post(url('/files/upload/confirm'), { fileId: file.fileId, version: 1, storageKey: 'k', sha256: file.sha256, size: 2 ** 53 - 1 }),
        'size',
      );
    });

    it.each(['%ZZ', '%', '%E0%A4%A', '%u002e', '%C0%AE%C0%AE', '%00'])('400 for the path parameter %s, which does not decode to a name', async (param) => {
      const res = await p.api.get(`/api/v1/projects/${param}/locks`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', message: expect.any(String) });
    });

    it.each([
      [
        'a NUL in a commit message',
        () => p.api.post(url('/commits'), { message: 'a\u0000b', fileVersions: [{ fileId: file.fileId, version: 1, action: 'add' }] }),
        'message',
      ],
      ['a lone surrogate in a lock note', () => p.api.post(url('/locks'), { fileIds: [file.fileId], note: 'x\ud800' }), 'note'],
      [
        'a lone surrogate in a path',
        () => p.api.post(url('/files/upload/initiate'), { path: 'a\udc00.bin', sha256: 'a'.repeat(64), size: 1, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' }),
        'path',
      ],
      ['a NUL in a query parameter', () => p.api.get(url('/locks?pathPrefix=a%00')), 'pathPrefix'],
      ['a NUL in a key of the body', () => p.api.post(url('/locks'), { fileIds: [file.fileId], 'no\u0000te': 'x' }), 'key'],
    ])('400 naming the field for %s, which Postgres cannot store as given', async (_, send, field) => {
      await expect400(await send(), field);
    });

    it.each([
      [
        'initiate',
        () => p.api.post(url('/files/upload/initiate'), { path: 'p/a\u0085', sha256: 'a'.repeat(64), size: 1, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' }),
        'path',
      ],
      [
        'initiate-batch',
        () =>
          p.api.post(url('/files/upload/initiate-batch'), {
            files: [{ path: 'p/a\u0085', sha256: 'a'.repeat(64), size: 1, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' }],
          }),
        'files.0',
      ],
      ['sync', () => p.api.post(url('/sync'), { files: [{ path: 'p/a\u0080', sha256: 'a'.repeat(64) }] }), 'files.0.path'],
      ['download-urls', () => p.api.post(url('/files/download-urls'), { files: [{ path: 'p/a\u009f' }] }), 'files.0'],
      ['the files listing', () => p.api.get(url(`/files?prefix=${encodeURIComponent('p\u0085/')}`)), 'prefix'],
      ['the locks listing', () => p.api.get(url(`/locks?pathPrefix=${encodeURIComponent('p\u0085')}`)), 'pathPrefix'],
    ])('refuses a C1 control character in a path given to %s, as any control character', async (_, send, where) => {
      const res = await send();
      // Batches answer a failing entry in its own result; single paths fail the request.
      const failure = res.status === 200 ? (res.body.results ?? res.body.files)[0] : res.body;
      expect(failure, JSON.stringify(res.body)).toMatchObject({ code: 'validation_failed' });
      expect(JSON.stringify(res.body), where).toMatch(/control character/);
    });

    it('keeps a lock note with paired surrogates (an emoji) as it was sent', async () => {
      const res = await p.api.post(url('/locks'), { fileIds: [file.fileId], note: 'on it 🎮' });
      expect(res.body.acquired[0].note).toBe('on it 🎮');
      await p.api.delete(url('/locks'), { fileIds: [file.fileId] });
    });

    it('400 for a body nested deeper than the API reads, however deep', async () => {
      for (const depth of [40, 10_000]) {
        const nested = '['.repeat(depth) + ']'.repeat(depth);
        const res = await p.api.request('POST', url('/files/upload/initiate-batch'), `{"files":[${nested}]}`);
        await expect400(res, 'nested deeper');
      }
    });

    const rawPost = (headers: Record<string, string>, body: Buffer | string) =>
      fetch(stack.baseUrl + url('/locks'), { method: 'POST', headers: { authorization: `Bearer ${p.key}`, 'x-device-id': p.deviceId, ...headers }, body }).then(
        readResponse,
      );

    const rawSend = (path: string, headers: Record<string, string>, body: Buffer) =>
      fetch(stack.baseUrl + url(path), { method: 'POST', headers: { authorization: `Bearer ${p.key}`, 'x-device-id': p.deviceId, ...headers }, body }).then(
        readResponse,
      );
    /** A JSON body whose `field` holds `bytes` between `before` and `after`, the rest of it ASCII. */
    const bodyWithBytes = (fields: Record<string, unknown>, field: string, before: string, bytes: number[], after: string) => {
      const [head, tail] = JSON.stringify({ ...fields, [field]: `${before}\u0001${after}` }).split('\\u0001');
      return Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]);
    };
    const initiateFields = { sha256: 'a'.repeat(64), size: 1, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' };

    it.each([
      ['a lone 0xFF byte', [0xff]],
      ['an overlong "." (C0 AE)', [0xc0, 0xae]],
      ['an encoded surrogate (ED A0 80)', [0xed, 0xa0, 0x80]],
      ['a truncated sequence (E2 82)', [0xe2, 0x82]],
    ])('400 for a path holding %s, which is not UTF-8, instead of storing U+FFFD in its place', async (_, bytes) => {
      const json = { 'content-type': 'application/json' };
      const res = await rawSend('/files/upload/initiate', json, bodyWithBytes(initiateFields, 'path', 'utf/a', bytes, '.bin'));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('UTF-8') });
    });

    it.each([
      ['a lock note', '/locks', () => ({ fileIds: [file.fileId] }), 'note'],
      ['a draft message', '/drafts', () => ({}), 'message'],
    ])('400 for %s that is not UTF-8', async (_, path, fields, field) => {
      const res = await rawSend(path, { 'content-type': 'application/json; charset=utf-8' }, bodyWithBytes(fields(), field, 'x', [0xff], 'y'));
      expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    });

    it('reads a UTF-16 body, and refuses one with an odd trailing byte rather than dropping it', async () => {
      const utf16 = { 'content-type': 'application/json; charset=utf-16le' };
      const body = Buffer.from(JSON.stringify({ fileIds: [file.fileId], note: 'utf-16 ✓' }), 'utf16le');
      expect(await rawSend('/locks', utf16, body)).toMatchObject({ status: 200, body: { acquired: [{ note: 'utf-16 ✓' }] } });
      await p.api.delete(url('/locks'), { fileIds: [file.fileId] });
      const odd = await rawSend('/locks', utf16, Buffer.concat([body, Buffer.from([0x20])]));
      expect(odd).toMatchObject({ status: 400, body: { code: 'validation_failed', message: expect.stringContaining('UTF-16LE') } });
    });

    it('reads a big-endian body labelled utf-16 in the byte order its BOM (or its zero bytes) gives, as the parser decodes it', async () => {
      const utf16 = { 'content-type': 'application/json; charset=utf-16' };
      const text = JSON.stringify({ fileIds: [file.fileId], note: 'Straße, Ørsted' });
      const bigEndian = Buffer.from(text, 'utf16le').swap16();
      for (const body of [Buffer.concat([Buffer.from([0xfe, 0xff]), bigEndian]), bigEndian]) {
        expect(await rawSend('/locks', utf16, body)).toMatchObject({ status: 200, body: { acquired: [{ note: 'Straße, Ørsted' }] } });
        await p.api.delete(url('/locks'), { fileIds: [file.fileId] });
      }
    });

    it('415 for a charset whose bytes the gateway cannot check (UTF-32)', async () => {
      const res = await rawSend('/locks', { 'content-type': 'application/json; charset=utf-32' }, Buffer.from('{}'));
      expect(res).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
    });

    it('reads a gzip-encoded JSON body', async () => {
      const res = await rawPost({ 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync(JSON.stringify({ fileIds: [file.fileId] })));
      expect(res.status).toBe(200);
      await p.api.delete(url('/locks'), { fileIds: [file.fileId] });
    });

    it.each(['gzip', 'deflate', 'br', 'zstd'])('400 for a body that is not valid %s', async (encoding) => {
      const res = await rawPost({ 'content-type': 'application/json', 'content-encoding': encoding }, 'not compressed at all');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', message: expect.any(String) });
    });

    it.each([
      ['an unknown Content-Encoding', { 'content-type': 'application/json', 'content-encoding': 'x-snappy' }],
      ['a text/plain body', { 'content-type': 'text/plain' }],
      ['a form body', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['a body without Content-Type', {}],
    ])('415 unsupported_media_type for %s', async (_, headers) => {
      const res = await rawPost(headers, JSON.stringify({ fileIds: [file.fileId] }));
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ code: 'unsupported_media_type', message: expect.any(String) });
    });
  });

  it('JSON 404 for unknown routes, authenticated or not', async () => {
    const anon = await new ApiClient(stack.baseUrl).get('/api/v1/nothing');
    expect(anon.status).toBe(404);
    expect(anon.body).toMatchObject({ code: 'route_not_found' });
    const authed = await p.api.get(`/api/v1/projects/${p.projectId}/nothing`);
    expect(authed.status).toBe(404);
  });

  it.each([
    ['a project route, with its key', () => `/api/v1/projects/${p.projectId}/files/upload/initiate`],
    ['a project route, without a key', () => `/api/v1/projects/${p.projectId}/locks`],
    ['validate-key', () => '/api/v1/auth/validate-key'],
    ['an admin route', () => '/admin/v1/orgs'],
    ['a dashboard route', () => '/api/v1/me/orgs'],
    ['health', () => '/healthz'],
    ['the API reference', () => '/docs'],
    ['the dashboard', () => '/'],
  ])('answers OPTIONS on %s as a method no route serves: JSON 404 route_not_found, no Allow list', async (what, path) => {
    const headers: Record<string, string> = what.endsWith('with its key') ? { authorization: `Bearer ${p.key}`, 'x-device-id': p.deviceId } : {};
    const res = await fetch(stack.baseUrl + path(), { method: 'OPTIONS', headers }).then(readResponse);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('allow')).toBeNull();
    expect(res.body).toEqual({ code: 'route_not_found', message: expect.stringContaining('OPTIONS') });
  });

  it('answers the request id it was given, or a new one', async () => {
    const given = await p.api.request('POST', '/api/v1/auth/validate-key', undefined, { 'x-request-id': 'trace-me-123' });
    expect(given.headers.get('x-request-id')).toBe('trace-me-123');
    expect((await p.api.post('/api/v1/auth/validate-key')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports ready when every service answers', async () => {
    const res = await new ApiClient(stack.baseUrl).get('/readyz');
    expect(res).toMatchObject({ status: 200, body: { status: 'ready', checks: { identity: 'ok', upload: 'ok', restore: 'ok' } } });
    expect((await new ApiClient(stack.baseUrl).get('/healthz')).status).toBe(200);
  });
});
