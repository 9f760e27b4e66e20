import fc from 'fast-check';
import { ROUTES, type Route } from './catalogue.ts';
import type { FuzzFixtures } from './fixtures.ts';
import { hostileString, MALFORMED_ENCODINGS, percentEncode, RawJson, type JsonLike } from './hostile-values.ts';
import { serialize, type Location } from './json-body.ts';
import { applyMutation, mutations, type Mutated, type Parts } from './mutations.ts';
import type { FuzzRequest } from './send.ts';
import { encodeBody } from './transport.ts';
import { validRequests, type ValidRequest, type ValidRequests } from './valid-requests.ts';

/** Longer URLs are refused by Node's HTTP parser before the app sees them; `unmatched` sends a few on purpose. */
const MAX_URL_PART = 4000;
const OVERSIZE_BODY = Buffer.from(`{"pad":"${'x'.repeat(17 * 1024 * 1024)}"}`);

/**
 * A value as it goes into a URL: strings percent-encoded as UTF-8, anything else as its JSON. RawJson
 * goes verbatim when it is printable ASCII (malformed percent-encodings); other bytes are
 * percent-encoded, since Node's parser refuses them raw before the app could.
 */
function urlText(value: JsonLike, keepSlashes = false): string {
  if (value instanceof RawJson) {
    const printable = value.bytes.every((b) => b > 0x20 && b < 0x7f);
    return (printable ? value.bytes.toString('latin1') : percentEncode(value.bytes)).slice(0, MAX_URL_PART);
  }
  const text = (typeof value === 'string' ? value : serialize(value).toString()).slice(0, MAX_URL_PART);
  const encoded = keepSlashes
    ? text
        .split('/')
        .map((segment) => percentEncode(segment))
        .join('/')
    : percentEncode(text);
  return encoded.slice(0, MAX_URL_PART);
}

/** The template's parameters filled in; `*name` is an object key, whose slashes separate path segments. */
function pathOf(template: string, params: Record<string, JsonLike>): string {
  return template
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) return urlText(params[segment.slice(1)] ?? '');
      if (segment.startsWith('*')) return urlText(params[segment.slice(1)] ?? '', true);
      return segment;
    })
    .join('/');
}

/** A query string; an array value repeats its parameter. */
function queryOf(query: Record<string, JsonLike>): string {
  const pairs = Object.keys(query).flatMap((name) => {
    const value = query[name];
    return (Array.isArray(value) ? value : [value]).map((v) => `${urlText(name)}=${urlText(v)}`);
  });
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

function authHeaders(route: Route, f: FuzzFixtures): Record<string, string> {
  switch (route.auth) {
    case 'key':
      return { authorization: `Bearer ${f.project.key}`, 'x-device-id': f.project.deviceId };
    case 'admin':
      return { authorization: `Bearer ${f.admin.token}` };
    case 'none':
    case 'signed-url':
      return {};
  }
}

function bodyBytes(parts: Parts, mutated: Mutated): Buffer | undefined {
  if (mutated.oversize) return OVERSIZE_BODY;
  const valid = parts.body === undefined ? undefined : serialize(parts.body);
  const raw = mutated.rawBody;
  if (raw instanceof RawJson) return raw.bytes;
  if (raw === 'truncated') return (valid ?? Buffer.from('{}')).subarray(0, Math.floor((valid?.length ?? 2) / 2));
  if (raw === 'trailing garbage') return Buffer.concat([valid ?? Buffer.from('{}'), Buffer.from(' x')]);
  if (mutated.transport && !valid) return Buffer.from('{}');
  return valid;
}

/** The request a valid one becomes under a mutation, with the headers its route's authentication needs. */
function build(route: Route, f: FuzzFixtures, valid: ValidRequest, mutated: Mutated): FuzzRequest {
  const { parts } = mutated;
  const body = bodyBytes(parts, mutated);
  const headers: Record<string, string | undefined> = {
    ...authHeaders(route, f),
    ...valid.headers,
    ...(body && !Buffer.isBuffer(valid.body) ? { 'content-type': 'application/json' } : {}),
    ...mutated.headers,
  };
  const transport = mutated.transport;
  if (transport) {
    headers['content-type'] = transport.contentType ?? undefined;
    if (transport.encoding !== undefined) headers['content-encoding'] = transport.encoding;
  }
  return {
    surface: route.surface,
    method: mutated.method ?? route.method,
    target: `${pathOf(route.path, parts.params)}${queryOf(parts.query)}`,
    headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    body: body && transport ? encodeBody(body, transport) : body,
    chunked: transport?.chunked ?? false,
    route: `${route.method} ${route.path}${route.surface === 'ops' ? ' (ops port)' : ''}`,
    mutation: mutated.description,
  };
}

function routeRequests(route: Route, f: FuzzFixtures, valid: fc.Arbitrary<ValidRequest>): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(valid, mutations(f)).map(([request, mutation]) => {
    const parts: Parts = {
      params: request.params,
      query: request.query,
      ...(request.body === undefined ? {} : { body: Buffer.isBuffer(request.body) ? new RawJson(request.body, 'object bytes') : request.body }),
    };
    return build(route, f, request, applyMutation(parts, mutation));
  });
}

/**
 * Paths no route answers: known words and ids in the wrong places, hostile and undecodable
 * segments, project routes with a method or a segment they do not take, and a URL longer than Node accepts.
 */
function unmatchedRequests(f: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const p = f.project.projectId;
  const segment = fc.oneof(
    fc.constantFrom('api', 'v1', 'projects', 'files', 'upload', 'admin', 'storage', 'objects', 'healthz', 'metrics', '..', '.', '', p, f.control.projectId),
    hostileString.map((s) => percentEncode(s.slice(0, 100))),
    fc.constantFrom(...MALFORMED_ENCODINGS),
  );
  const path = fc.oneof(
    { weight: 6, arbitrary: fc.array(segment, { minLength: 1, maxLength: 6 }).map((segments) => `/${segments.join('/')}`) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('branches', 'drafts', 'plugins', 'download-urls', 'files', 'commits/1', 'locks/x')
        .map((rest) => `/api/v1/projects/${p}/${rest}`),
    },
    { weight: 1, arbitrary: fc.constant(`/api/v1/${'a'.repeat(20_000)}`) },
  );
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
      target: path,
      surface: fc.constantFrom<FuzzRequest['surface']>('api', 'api', 'api', 'ops'),
      authorized: fc.boolean(),
    })
    .map(({ method, target, surface, authorized }): FuzzRequest => ({
      surface,
      method,
      target,
      headers: authorized ? { authorization: `Bearer ${f.project.key}`, 'x-device-id': f.project.deviceId } : {},
      chunked: false,
      route: 'unmatched',
      mutation: 'no such route',
    }));
}

function route(key: string): Route {
  const found = ROUTES.find((r) => r.key === key);
  if (!found) throw new Error(`no route ${key} in the catalogue`);
  return found;
}

/**
 * Requests every run sends first, whatever the seed: the killers, valid requests on real
 * ids with one integer past what a column holds (a commit's `version: 2147483648` took a process down).
 */
export function namedCases(f: FuzzFixtures): FuzzRequest[] {
  const p = f.project;
  const [file] = p.files;
  const [reservation] = p.reservations;
  const project = { projectId: p.projectId };
  const cases: [string, ValidRequest, Location, JsonLike][] = [
    [
      'postProjectsCommits',
      { params: project, query: {}, headers: {}, body: { message: 'fuzz', fileVersions: [{ fileId: file.fileId, action: 'modify', version: 1 }] } },
      ['body', 'fileVersions', 0, 'version'],
      2 ** 31,
    ],
    [
      'postProjectsRestore',
      { params: project, query: {}, headers: {}, body: { files: [{ fileId: file.fileId, toVersion: 1 }] } },
      ['body', 'files', 0, 'toVersion'],
      2 ** 31,
    ],
    [
      'postProjectsRestore',
      { params: project, query: {}, headers: {}, body: { files: [{ fileId: file.fileId, toVersion: 1 }] } },
      ['body', 'files', 0, 'toVersion'],
      2 ** 53,
    ],
    [
      'postProjectsFilesUploadConfirm',
      {
        params: project,
        query: {},
        headers: {},
        body: {
          fileId: reservation.fileId,
          version: reservation.version,
          storageKey: reservation.storageKey ?? '',
          sha256: reservation.sha256,
          size: reservation.size,
        },
      },
      ['body', 'size'],
      2 ** 53 - 1,
    ],
    [
      'postProjectsFilesUploadInitiate',
      { params: project, query: {}, headers: {}, body: { path: file.path, sha256: file.versions[0].sha256, size: 1, contentMd5: 'AAAAAAAAAAAAAAAAAAAAAA==' } },
      ['body', 'size'],
      5_368_709_121,
    ],
    [
      'postProjectsSync',
      { params: project, query: {}, headers: {}, body: { files: [{ path: file.path, sha256: file.versions[0].sha256, baseVersion: 1 }] } },
      ['body', 'files', 0, 'baseVersion'],
      2 ** 31,
    ],
    ['getProjectsFilesByFileIdVersions', { params: { ...project, fileId: file.fileId }, query: { limit: '1' }, headers: {} }, ['query', 'limit'], '2147483648'],
  ];
  return cases.map(([key, valid, at, value]) => {
    const parts: Parts = { params: valid.params, query: valid.query, ...(valid.body === undefined ? {} : { body: valid.body as JsonLike }) };
    const mutated = applyMutation(parts, { kind: 'set', at, value });
    return build(route(key), f, valid, mutated);
  });
}

function modelOf(models: ValidRequests, route: Route): fc.Arbitrary<ValidRequest> {
  const model = models[route.key];
  if (!model) throw new Error(`no valid request for ${route.key} (${route.method} ${route.path}) in valid-requests.ts`);
  return model;
}

/** Every catalogue route by its weight, plus unmatched paths: the whole input of the fuzz. */
export function fuzzRequests(f: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const models = validRequests(f);
  return fc.oneof(...ROUTES.map((route) => ({ weight: route.weight, arbitrary: routeRequests(route, f, modelOf(models, route)) })), {
    weight: 4,
    arbitrary: unmatchedRequests(f),
  });
}
